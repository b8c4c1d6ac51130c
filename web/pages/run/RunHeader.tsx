/**
 * Run header: name, status and verdict (said once), who interrupted it,
 * elapsed time, breaker state with its cause (the tripping request a link),
 * and Cancel, which asks first.
 */
import type { RunDetail } from '../../../shared/apiSchemas.ts';
import type { StoppedBy } from '../../../shared/stopRules.ts';
import type { BreakerCause } from '../../../shared/types.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { breakerWords, interruptWords } from '../../state/runStory.ts';
import { BreakerFact } from './BreakerFact.tsx';
import { CancelControl } from './CancelControl.tsx';

export interface RunHeaderProps {
  detail: RunDetail;
  status: string;
  verdict: string | null;
  elapsedS: number;
  breaker: { tripped: boolean; cause: BreakerCause | null; stoppedBy?: StoppedBy | null };
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
  const stopOn = (detail.config as { stopOn?: unknown } | null)?.stopOn;
  const words = breakerWords(detail.failFast || (Array.isArray(stopOn) && stopOn.length > 0), breaker.tripped, running);
  const badgeKey = verdict ?? (status === 'finished' ? 'finished' : status);
  const interrupted = interruptWords(interruptCause);
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
        <BreakerFact
          runId={detail.id}
          words={words}
          tripped={breaker.tripped}
          cause={breaker.cause}
          stoppedBy={breaker.stoppedBy ?? null}
          onFindRequest={onFindRequest}
        />
        {running && <CancelControl onCancel={onCancel} />}
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
