/** The stalled worker's owner-thread stack as the watchdog read it, with Copy for the whole report as text. */
import type { StackFrame } from '../../../shared/types.ts';
import type { WatchdogStallReport } from '../../../shared/stallReport.ts';
import { useCopy } from './useCopy.ts';

function frameText(f: StackFrame): string {
  return `${f.function || '(anonymous)'} (${f.file}:${f.line}:${f.column})${f.language && f.language !== 'js' ? ` [${f.language}]` : ''}`;
}

function reportText(r: WatchdogStallReport): string {
  return [
    `Code2Wav stall: worker ${r.workerId}, op ${r.opId}, phase ${r.phase}`,
    ...r.stack.map((f) => `  at ${frameText(f)}`),
  ].join('\n');
}

export function OwnerStack({ report: r }: { report: WatchdogStallReport }) {
  const [copied, copy] = useCopy();
  return (
    <div>
      <h3>
        Owner-thread stack{' '}
        <button type="button" onClick={() => copy(reportText(r))} disabled={r.stack.length === 0}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </h3>
      {r.stack.length === 0 ? (
        <p className="muted">No stack: {r.stackError ?? 'capture failed'}</p>
      ) : (
        <ol className="frames" data-testid="stack-frames">
          {r.stack.map((f, i) => (
            <li key={i} className="frame">
              <code className="fn">{f.function || '(anonymous)'}</code>
              <span className="loc">
                {f.file}:{f.line}:{f.column}
              </span>
              {f.language && f.language !== 'js' && <span className="pill">{f.language}</span>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
