/** Short lists on the run page: why the verdict is what it is, and the run's warnings. */
import type { RunModel } from '../../../shared/runView/runModel.ts';

export function VerdictReasons({ reasons, verdict }: { reasons: readonly string[]; verdict: string | null }) {
  if (reasons.length === 0) return null;
  return (
    <ul className={`reasons verdict-${verdict ?? 'none'}`} data-testid="verdict-reasons" data-verdict={verdict}>
      {reasons.map((r, i) => (
        <li key={i}>{r}</li>
      ))}
    </ul>
  );
}

export function RunWarnings({ warnings }: { warnings: RunModel['warnings'] }) {
  if (warnings.length === 0) return null;
  return (
    <section className="panel">
      <h2>Warnings ({warnings.length})</h2>
      <ul className="warnings">
        {warnings.map((w, i) => (
          <li key={i}>
            {w.index !== undefined ? `#${w.index}: ` : ''}
            {w.message}
          </li>
        ))}
      </ul>
    </section>
  );
}
