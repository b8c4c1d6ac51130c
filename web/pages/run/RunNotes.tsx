/** Short lists on the run page: why the verdict is what it is, the run's warnings, and what was not stored. */
import type { RunModel } from '../../../shared/runView/runModel.ts';
import { droppedWords } from '../../state/runData.ts';

/** A plain warning line when the database refused some of the run's events (docs/design.md#outage-buffer). */
export function DroppedEvents({ n, error }: { n: number; error: string | null }) {
  const words = droppedWords(n, error);
  if (!words) return null;
  return (
    <p className="dropped-events" role="alert" data-testid="dropped-events">
      {words}
    </p>
  );
}

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
