/**
 * Run header: name, status and verdict (said once), who interrupted it,
 * elapsed time, breaker state with its cause (the tripping request a link),
 * and Cancel, which asks first.
 */
import { useState } from 'react';
import type { RunDetail } from '../../shared/apiSchemas.ts';
import type { BreakerCause } from '../../shared/types.ts';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { href } from '../state/router.ts';
import { breakerWords, interruptWords } from '../state/runStory.ts';

export interface RunHeaderProps {
  detail: RunDetail;
  status: string;
  verdict: string | null;
  elapsedS: number;
  breaker: { tripped: boolean; cause: BreakerCause | null };
  running: boolean;
  /** The latest run.status message (e.g. why it errored). */
  message?: string | null;
  /** Result key interrupt_cause (`signal` | `dashboard`), once the run ended interrupted. */
  interruptCause?: unknown;
  onCancel: () => void;
  /** Open a request of this run (the breaker's cause links to it). */
  onFindRequest?: (index: number) => void;
}

export function RunHeader({
  detail,
  status,
  verdict,
  elapsedS,
  breaker,
  running,
  message,
  interruptCause,
  onCancel,
  onFindRequest,
}: RunHeaderProps) {
  const meta = Object.entries(detail.metadata ?? {});
  const [confirming, setConfirming] = useState(false);
  const words = breakerWords(detail.failFast, breaker.tripped, running);
  const badgeKey = verdict ?? (status === 'finished' ? 'finished' : status);
  const interrupted = interruptWords(interruptCause);
  const cause = breaker.cause;
  return (
    <header className="run-head">
      <div className="run-title">
        <h1>{detail.label || detail.id}</h1>
        <StatusBadge verdict={verdict} status={status} />
        {/* The status only when it adds to the badge (not "interrupted interrupted"). */}
        <span className="muted" data-testid="run-status" data-status={status}>
          {status !== badgeKey ? status : ''}
        </span>
        {interrupted && (
          <span className="pill" data-testid="interrupt-cause" data-cause={String(interruptCause)}>
            {interrupted}
          </span>
        )}
      </div>
      <div className="run-facts">
        <span>
          elapsed <b data-testid="elapsed">{elapsedS.toFixed(1)} s</b>
        </span>
        <span>{detail.target ?? 'target unknown'}</span>
        <span>{detail.model ?? ''}</span>
        <span>
          concurrency {detail.maxConcurrency ?? '∞'} · rate {detail.requestRate ?? '?'}
        </span>
        <span className={`breaker ${words.state}`} data-testid="breaker" data-state={words.state}>
          breaker: {words.text}
          {breaker.tripped && (
            <>
              {' by '}
              {cause ? (
                <a
                  href={href({ page: 'run', id: detail.id, request: cause.requestIndex })}
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
        {running &&
          (confirming ? (
            <span className="confirm" role="group" aria-label="Confirm cancel">
              <span>Cancel the run? In-flight requests are aborted, queued ones never sent.</span>
              <button
                type="button"
                className="danger"
                data-testid="confirm-cancel"
                onClick={() => {
                  setConfirming(false);
                  onCancel();
                }}
              >
                Cancel the run
              </button>
              <button type="button" data-testid="keep-running" onClick={() => setConfirming(false)} autoFocus>
                Keep running
              </button>
            </span>
          ) : (
            <button type="button" className="danger" onClick={() => setConfirming(true)} data-testid="cancel-run">
              Cancel run…
            </button>
          ))}
      </div>
      {meta.length > 0 && (
        <div className="meta">
          {meta.map(([k, v]) => (
            <span key={k} className="pill">
              {k}={v}
            </span>
          ))}
        </div>
      )}
      {detail.error ? (
        <p className="err" role="alert">
          {detail.error}
        </p>
      ) : (
        message && (
          <p className={status === 'errored' ? 'err' : 'muted'} data-testid="status-message">
            {message}
          </p>
        )
      )}
    </header>
  );
}
