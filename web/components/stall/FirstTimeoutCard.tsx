/**
 * The run's first structural timeout as stall evidence: which request, what
 * limit, when, and the phase the target's telemetry placed it in. It has no
 * stack (the client cannot see one), so its fingerprint is the phase alone;
 * on the board it joins the run's stack fingerprint when the run has one.
 */
import type { FirstTimeout } from '../../../shared/stalls/stallEvidence.ts';

export function FirstTimeoutCard({
  timeout: f,
  onFindRequest,
}: {
  timeout: FirstTimeout;
  onFindRequest: (id: string) => void;
}) {
  return (
    <article className="stall first-timeout" data-testid="first-timeout" data-phase={f.phase}>
      <header className="stall-head">
        <span className="stall-title">First structural timeout</span>
        <span className="stall-age">
          {f.kind.replace('_', ' ')} limit{f.t !== null ? ` at ${(f.t / 1000).toFixed(1)} s` : ''}, blocked in{' '}
          <strong>{f.phase}</strong>
        </span>
      </header>
      <p>
        Request{' '}
        <button type="button" className="link" onClick={() => onFindRequest(f.requestId)}>
          #{f.index} {f.requestId}
        </button>{' '}
        timed out first. {f.phase === 'unknown' ? 'No telemetry placed it in a phase. ' : ''}No stack: a timeout is seen
        from the client.
      </p>
    </article>
  );
}
