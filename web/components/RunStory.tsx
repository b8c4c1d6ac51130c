/**
 * The run's story in one plain sentence (web/state/runStory.ts): the stall,
 * who waited behind it, the timeout that tripped the breaker, what it
 * cancelled; each request it names is a link that opens it, and a range
 * (`#5–#8`) a link that shows those requests alone (`?reqs=5-8`).
 */
import { href } from '../state/router.ts';
import type { StoryPart } from '../../shared/runView/runStory.ts';

export function RunStory({
  runId,
  clauses,
  onFindRequests,
}: {
  runId: string;
  clauses: readonly StoryPart[][];
  /** Show `indices` (several: only them) with the first open. */
  onFindRequests: (indices: number[]) => void;
}) {
  if (clauses.length === 0) return null;
  return (
    <p className="run-story" data-testid="run-story">
      {clauses.map((parts, i) => (
        <span key={i}>
          {i > 0 ? '; ' : ''}
          {parts.map((p, j) =>
            'requests' in p ? (
              <a
                key={j}
                href={href({
                  page: 'run',
                  id: runId,
                  request: p.requests[0],
                  ...(p.requests.length > 1 ? { only: p.requests } : {}),
                })}
                data-testid="story-link"
                data-requests={p.requests.join(',')}
                onClick={(e) => {
                  e.preventDefault();
                  onFindRequests(p.requests);
                }}
              >
                {p.text}
              </a>
            ) : (
              <span key={j}>{i === 0 && j === 0 ? p.text.charAt(0).toUpperCase() + p.text.slice(1) : p.text}</span>
            ),
          )}
        </span>
      ))}
      .
    </p>
  );
}
