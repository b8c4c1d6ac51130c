/** Run header: name, status and verdict, elapsed time, breaker state with its cause, cancel. */
import type { RunDetail } from '../../shared/apiSchemas.ts';
import type { BreakerCause } from '../../shared/types.ts';
import { StatusBadge } from '../components/StatusBadge.tsx';

export interface RunHeaderProps {
  detail: RunDetail;
  status: string;
  verdict: string | null;
  elapsedS: number;
  breaker: { tripped: boolean; cause: BreakerCause | null };
  running: boolean;
  /** The latest run.status message (e.g. why it errored). */
  message?: string | null;
  onCancel: () => void;
}

export function RunHeader({ detail, status, verdict, elapsedS, breaker, running, message, onCancel }: RunHeaderProps) {
  const meta = Object.entries(detail.metadata ?? {});
  return (
    <header className="run-head">
      <div className="run-title">
        <h1>{detail.label || detail.id}</h1>
        <StatusBadge verdict={verdict} status={status} />
        <span className="muted" data-testid="run-status">
          {status}
        </span>
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
        <span
          className={`breaker ${breaker.tripped ? 'tripped' : detail.failFast ? 'armed' : 'off'}`}
          data-testid="breaker"
          data-state={breaker.tripped ? 'tripped' : detail.failFast ? 'armed' : 'off'}
        >
          breaker:{' '}
          {breaker.tripped
            ? `tripped by #${breaker.cause?.requestIndex ?? '?'} (${breaker.cause?.kind ?? '?'} timeout after ${breaker.cause?.elapsedS?.toFixed(1) ?? '?'} s${breaker.cause?.lastPhase ? `, last phase ${breaker.cause.lastPhase}` : ''})`
            : detail.failFast
              ? 'armed'
              : 'off'}
        </span>
        {running && (
          <button type="button" className="danger" onClick={onCancel} data-testid="cancel-run">
            Cancel run
          </button>
        )}
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
