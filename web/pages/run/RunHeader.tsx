/**
 * Run header: name, status and verdict (said once), who interrupted it,
 * elapsed time, breaker state with its cause (the tripping request a link),
 * and what can stop the run (web/pages/run/RunControls.tsx), each asking first.
 */
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import type { StoppedBy } from '../../../shared/config/stopRules.ts';
import type { BreakerCause } from '../../../shared/types.ts';
import { identityText, modelMismatch, type ServerIdentity } from '../../../shared/runInfo/serverIdentity.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RunWhere } from '../../components/RunWhere.tsx';
import { idBeside, runName } from '../../state/runName.ts';
import { breakerWords, interruptWords } from '../../../shared/runView/runStory.ts';
import { BreakerFact } from './BreakerFact.tsx';
import { loadWords, targetWords } from '../../state/runFacts.ts';
import type { RunModel } from '../../../shared/runView/runModel.ts';
import { CancelControl, DeleteControl, PinControl, ReportedRunControl } from './RunControls.tsx';

export interface RunHeaderProps {
  detail: RunDetail;
  status: string;
  verdict: string | null;
  elapsedS: number;
  breaker: { tripped: boolean; cause: BreakerCause | null; stoppedBy?: StoppedBy | null };
  running: boolean;
  /** The latest run.status message (e.g. why it errored). */
  message?: string | null;
  /** Who interrupted the run (`signal` | `dashboard`), once it ended interrupted. */
  interruptCause?: unknown;
  /** The engine's run.started, for what the stored detail does not say (a reported run without a config). */
  info: RunModel['info'];
  /** What the run does before its clock starts (web/state/runFacts.ts), shown instead of the elapsed time. */
  starting?: string | null;
  onCancel: () => Promise<unknown>;
  /** Mark a reported run abandoned (its CLI is elsewhere). */
  onAbandon: () => Promise<unknown>;
  onDelete: () => Promise<unknown>;
  /** Pin or unpin the run (kept whole by retention). */
  onPin: (pinned: boolean) => Promise<{ pinned: boolean }>;
  /** Open a request of this run (the breaker's cause links to it). */
  onFindRequest?: (index: number) => void;
  /** The page's token may cancel, abandon, pin and delete (admin): otherwise none of them is offered. */
  canManage: boolean;
  /** What the target said it is at the start (model list, version); null when not read. */
  identity?: ServerIdentity | null;
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
  onPin,
  onFindRequest,
  identity,
  info,
  starting,
  canManage,
}: RunHeaderProps) {
  const load = loadWords(detail, info);
  const meta = Object.entries(detail.metadata ?? {});
  const stopOn = (detail.config as { stopOn?: unknown } | null)?.stopOn;
  const words = breakerWords(detail.failFast || (Array.isArray(stopOn) && stopOn.length > 0), breaker.tripped, running);
  const badgeKey = verdict ?? (status === 'finished' ? 'finished' : status);
  // A reported run the dashboard interrupted was marked abandoned there: nothing was cancelled.
  const reported = detail.source === 'cli';
  const abandoned = reported && interruptCause === 'dashboard';
  const interrupted = abandoned ? 'marked abandoned in the dashboard' : interruptWords(interruptCause);
  return (
    <header className="run-head">
      <div className="run-title">
        <h1>{runName(detail)}</h1>
        {idBeside(detail) && (
          <code className="muted run-id" data-testid="run-id">
            {detail.id}
          </code>
        )}
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
        {starting ? (
          <span className="starting" role="status" data-testid="run-starting">
            <span className="spinner" aria-hidden="true" /> {starting}…
          </span>
        ) : (
          <span>
            elapsed <b data-testid="elapsed">{elapsedS.toFixed(1)} s</b>
          </span>
        )}
        <span data-testid="run-target">{targetWords(detail, info)}</span>
        <span>{detail.model ?? info?.model ?? ''}</span>
        {identity && (
          <span data-testid="server-identity" title={identity.notes.join('\n')}>
            server: {identityText(identity)}
          </span>
        )}
        <ModelMismatch identity={identity} model={detail.model ?? info?.model} />
        {load && <span data-testid="run-load">{load}</span>}
        <BreakerFact
          runId={detail.id}
          words={words}
          tripped={breaker.tripped}
          cause={breaker.cause}
          stoppedBy={breaker.stoppedBy ?? null}
          onFindRequest={onFindRequest}
        />
        {canManage &&
          running &&
          (reported ? <ReportedRunControl onAbandon={onAbandon} /> : <CancelControl onCancel={onCancel} />)}
        {canManage && abandoned && !running && <DeleteControl onDelete={onDelete} />}
        {canManage && !running && <PinControl key={detail.id} pinned={detail.pinned} onPin={onPin} />}
      </div>
      {meta.length > 0 && (
        <div className="meta">
          <RunWhere metadata={detail.metadata} />
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

/** The requested model when the server's /v1/models does not list it: why its requests fail (404 "Not Found"). */
function ModelMismatch({ identity, model }: { identity?: ServerIdentity | null; model?: string | null }) {
  const mismatch = modelMismatch(identity, model);
  return mismatch ? (
    <span className="warn" role="note" data-testid="model-mismatch">
      ⚠ {mismatch}
    </span>
  ) : null;
}
