/**
 * The stalled worker's owner-thread stack as the watchdog read it, with Copy
 * for the whole report as text (run, phase, op, age, requests, fingerprint,
 * then the stack: web/state/stallText.ts).
 */
import type { WatchdogStallReport } from '../../../shared/stalls/stallReport.ts';
import { stallCopyText, type StallCopyFacts } from '../../state/stallText.ts';
import { useCopy } from './useCopy.ts';
import { useRunPlace } from './runPlace.ts';

export function OwnerStack({ report: r, facts }: { report: WatchdogStallReport; facts: StallCopyFacts }) {
  const [copied, copy] = useCopy();
  const place = useRunPlace();
  return (
    <div>
      <h3>
        Owner-thread stack{' '}
        <button
          type="button"
          onClick={() => copy(stallCopyText(r, { ...facts, metadata: place, dashboardUrl: location.origin }))}
          disabled={r.stack.length === 0}
          data-testid="copy-stack"
        >
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
