/**
 * The outcome counts of a run: completed and failed, and inside failed its
 * parts (timed out, cancelled after timeout, cancelled, unsent, errored),
 * counted by the one shared rule (shared/requests/outcomes.ts) and named as in the
 * metrics table, so "failed" here is the table's "Failed requests".
 */
import type { RunCounts } from '../../shared/types.ts';
import { outcomeCards } from '../../shared/runView/runStory.ts';
import { count } from '../../shared/format.ts';
import type { StopLike } from '../../shared/requests/stopLabel.ts';

export function Counters({ counts, inFlight, stop }: { counts: RunCounts; inFlight?: number; stop?: StopLike }) {
  const cards = outcomeCards(counts, inFlight, stop);
  const head = cards.filter((c) => !c.part);
  const parts = cards.filter((c) => c.part);
  return (
    <dl className="counters" data-testid="counters">
      {head.map((c) => (
        <div
          key={c.id}
          className={`counter c-${c.id}${(c.id === 'failed' || c.id === 'completed') && c.value === 0 ? ' zero' : ''}`}
          data-testid={`count-${c.id}`}
          title={c.title}
        >
          <dt>{c.label}</dt>
          <dd>{count(c.value)}</dd>
          {c.id === 'failed' && parts.length > 0 && (
            <ul className="counter-parts" aria-label="of which">
              {parts.map((p) => (
                <li key={p.id} className={`c-${p.id}`} data-testid={`count-${p.id}`} title={p.title}>
                  <b>{count(p.value)}</b> {p.label}
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </dl>
  );
}
