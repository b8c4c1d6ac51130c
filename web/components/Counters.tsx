/** The outcome counts of a run, in the order the design lists them. */
import type { RunCounts } from '../../shared/types.ts';

export function Counters({ counts, inFlight }: { counts: RunCounts; inFlight?: number }) {
  const items: [string, number | undefined, string][] = [
    ['total', counts.total, ''],
    ['in flight', inFlight, 'inflight'],
    ['completed', counts.completed, 'completed'],
    ['failed', counts.failed, 'failed'],
    ['timed out', counts.timedOut, 'timed_out'],
    ['cancelled after timeout', counts.cancelledAfterTimeout, 'cancelled_after_timeout'],
    ['cancelled', counts.cancelled, 'cancelled'],
    ['not dispatched', counts.notDispatched, 'not_dispatched'],
  ];
  return (
    <dl className="counters" data-testid="counters">
      {items
        .filter(([, v]) => v !== undefined)
        .map(([label, v, cls]) => (
          <div key={label} className={`counter ${cls ? `c-${cls}` : ''}`} data-testid={`count-${cls || 'total'}`}>
            <dt>{label}</dt>
            <dd>{v!.toLocaleString('en-US')}</dd>
          </div>
        ))}
    </dl>
  );
}
