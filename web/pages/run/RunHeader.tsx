/**
 * Run header: name, status and verdict (said once), who interrupted it,
 * elapsed time, breaker state with its cause (the tripping request a link),
 * and what can stop the run (web/pages/run/RunControls.tsx), each asking first.
 */
import type { RunDetail } from '../../../shared/apiSchemas.ts';
import type { BreakerCause } from '../../../shared/types.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { breakerWords, interruptWords } from '../../../shared/runView/runStory.ts';
import { BreakerFact } from './BreakerFact.tsx';
import { CancelControl, DeleteControl, ReportedRunControl } from './RunControls.tsx';

export interface RunHeaderProps {
  detail: RunDetail;
  status: string;
  verdict: string | null;
  elapsedS: number;
  breaker: { tripped: boolean; cause: BreakerCause | null };
  running: boolean;
  /** The latest run.status message (e.g. why it errored). */
  message?: string | null;
  /** Who interrupted the run (`signal` | `dashboard`), once it ended interrupted. */
  interruptCause?: unknown;
  onCancel: () => Promise<unknown>;
  /** Mark a reported run abandoned (its CLI is elsewhere). */
  onAbandon: () => Promise<unknown>;
  onDelete: () => Promise<unknown>;
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
  onAbandon,
  onDelete,
  onFindRequest,
}: RunHeaderProps) {
  const meta = Object.entries(detail.metadata ?? {});
  const words = breakerWords(detail.failFast, breaker.tripped, running);
  const badgeKey = verdict ?? (status === 'finished' ? 'finished' : status);
  // A reported run the dashboard interrupted was marked abandoned there: nothing was cancelled.
  const reported = detail.source === 'cli';
  const abandoned = reported && interruptCause === 'dashboard';
  const interrupted = abandoned ? 'marked abandoned in the dashboard' : interruptWords(interruptCause);
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
          onFindRequest={onFindRequest}
        />
        {running && (reported ? <ReportedRunControl onAbandon={onAbandon} /> : <CancelControl onCancel={onCancel} />)}
        {abandoned && !running && <DeleteControl onDelete={onDelete} />}
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
