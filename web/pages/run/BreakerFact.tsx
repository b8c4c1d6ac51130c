/**
 * The breaker's state in the run header; when tripped, by which request (a
 * link to it), which timeout, after how long — or, for a stop rule other than
 * a timeout, by which rule (docs/design.md#stop-rules).
 */
import type { StoppedBy } from '../../../shared/config/stopRules.ts';
import type { BreakerCause } from '../../../shared/types.ts';
import { href } from '../../state/router.ts';
import type { breakerWords } from '../../../shared/runView/runStory.ts';

export function BreakerFact({
  runId,
  words,
  tripped,
  cause,
  stoppedBy,
  onFindRequest,
}: {
  runId: string;
  words: ReturnType<typeof breakerWords>;
  tripped: boolean;
  cause: BreakerCause | null;
  stoppedBy?: StoppedBy | null;
  onFindRequest?: (index: number) => void;
}) {
  if (tripped && !cause && stoppedBy)
    return (
      <span className={`breaker ${words.state}`} data-testid="breaker" data-state={words.state}>
        breaker: {words.text} by the stop rule <code data-testid="breaker-rule">{stoppedBy.rule}</code> at{' '}
        {stoppedBy.atS.toFixed(1)} s
      </span>
    );
  return (
    <span className={`breaker ${words.state}`} data-testid="breaker" data-state={words.state}>
      breaker: {words.text}
      {tripped && (
        <>
          {' by '}
          {cause ? (
            <a
              href={href({ page: 'run', id: runId, request: cause.requestIndex })}
              data-testid="breaker-request"
              onClick={(e) => {
                if (!onFindRequest) return;
                e.preventDefault();
                onFindRequest(cause.requestIndex);
              }}
            >
              #{cause.requestIndex}
            </a>
          ) : (
            '#?'
          )}{' '}
          ({cause?.kind ?? '?'} timeout after {cause?.elapsedS?.toFixed(1) ?? '?'} s
          {cause?.lastPhase ? `, last phase ${cause.lastPhase}` : ''})
        </>
      )}
    </span>
  );
}
