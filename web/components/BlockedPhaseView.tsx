/**
 * The blocked-phase view: per watchdog report, the Code2Wav phase strip with
 * the stuck phase lit and its age counting up while the run is live, the
 * phase details, the owner thread's stack frames (copyable), the affected
 * requests (click to find them on the timeline), and whether it recovered.
 * A py-spy capture of the server (ServerStacksCard) lights the inferred phase,
 * says from which frame, and lists processes and threads.
 */
import { useState } from 'react';
import { C2W_PHASES, type StackFrame } from '../../shared/types.ts';
import { isServerStacks, stallKey, type WatchdogStallReport } from '../../shared/stallReport.ts';
import type { RunModel, StallRecord } from '../state/runModel.ts';
import { stallAgeS } from '../state/selectors.ts';
import { ServerStacksCard } from './ServerStacksCard.tsx';

export interface BlockedPhaseViewProps {
  stalls: readonly StallRecord[];
  model: Pick<RunModel, 'startedAtMs' | 'finishedT' | 'indexById'>;
  nowWallMs: number;
  onFindRequest: (requestId: string) => void;
  /** The run is over (also when the model saw no run.status, e.g. reports read from the store). */
  ended?: boolean;
}

export function BlockedPhaseView({ stalls, model, nowWallMs, onFindRequest, ended }: BlockedPhaseViewProps) {
  if (stalls.length === 0) return null;
  return (
    <section className="blocked" aria-label="Blocked phases" data-testid="blocked-view">
      <h2>Blocked Code2Wav phase{stalls.length > 1 ? 's' : ''}</h2>
      {stalls.map((s) =>
        isServerStacks(s.report) ? (
          <ServerStacksCard key={`py-spy:${s.report.capture}`} report={s.report} onFindRequest={onFindRequest} />
        ) : (
          <StallCard
            key={`${stallKey(s.report).workerId}:${stallKey(s.report).opId}`}
            stall={s}
            report={s.report}
            model={model}
            nowWallMs={nowWallMs}
            onFindRequest={onFindRequest}
            ended={ended || model.finishedT !== null}
          />
        ),
      )}
    </section>
  );
}

function frameText(f: StackFrame): string {
  return `${f.function || '(anonymous)'} (${f.file}:${f.line}:${f.column})${f.language && f.language !== 'js' ? ` [${f.language}]` : ''}`;
}

function StallCard({
  stall,
  report: r,
  model,
  nowWallMs,
  onFindRequest,
  ended,
}: {
  stall: StallRecord;
  report: WatchdogStallReport;
  model: BlockedPhaseViewProps['model'];
  nowWallMs: number;
  onFindRequest: (id: string) => void;
  ended: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const age = stallAgeS(stall, model, nowWallMs);
  const counting = !stall.recovered && !ended;
  const stuck = (C2W_PHASES as readonly string[]).indexOf(r.phase);
  const copy = async () => {
    const text = [
      `Code2Wav stall: worker ${r.workerId}, op ${r.opId}, phase ${r.phase}`,
      ...r.stack.map((f) => `  at ${frameText(f)}`),
    ].join('\n');
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <article className={`stall${stall.recovered ? ' recovered' : ''}`} data-testid="stall-report" data-phase={r.phase}>
      <header className="stall-head">
        <span className="stall-title">
          {r.model} · worker {r.workerId} · op {r.opId}
        </span>
        <span className="stall-age" data-testid="stall-age" data-age-s={age.toFixed(2)} aria-live="off">
          {age.toFixed(1)} s in <strong>{r.phase}</strong>
          {counting ? ' and counting' : ''}
        </span>
        <span className={`pill ${stall.recovered ? 'pill-ok' : 'pill-bad'}`} data-testid="stall-state">
          {stall.recovered
            ? `recovered after ${stall.recovered.stalledS.toFixed(1)} s`
            : ended
              ? 'blocked when the run ended'
              : 'still blocked'}
        </span>
      </header>
      <ol className="phase-strip" aria-label="Code2Wav phases">
        {C2W_PHASES.map((p, i) => (
          <li
            key={p}
            className={`ps ph-${i}${i === stuck ? ' stuck' : ''}${i < stuck ? ' done' : ''}${i === stuck && counting ? ' live' : ''}`}
            aria-current={i === stuck ? 'step' : undefined}
          >
            {p.replace(/_/g, ' ')}
          </li>
        ))}
        {stuck < 0 && <li className="ps stuck">{r.phase}</li>}
      </ol>
      <div className="stall-grid">
        <div>
          <h3>Details</h3>
          <table className="kv">
            <tbody>
              <tr>
                <th>time in op</th>
                <td>{r.inOpS.toFixed(2)} s at capture</td>
              </tr>
              <tr>
                <th>captured</th>
                <td>{new Date(r.capturedAtMs).toLocaleTimeString()}</td>
              </tr>
              {Object.entries(r.details).map(([k, v]) => (
                <tr key={k}>
                  <th>{k}</th>
                  <td>{String(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Affected requests ({r.requestIds.length})</h3>
          <ul className="req-list">
            {r.requestIds.map((id) => (
              <li key={id}>
                <button type="button" className="link" onClick={() => onFindRequest(id)} data-testid="stall-request">
                  {model.indexById[id] !== undefined ? `#${model.indexById[id]} ` : ''}
                  {id}
                </button>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h3>
            Owner-thread stack{' '}
            <button type="button" onClick={copy} disabled={r.stack.length === 0}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </h3>
          {r.stack.length === 0 ? (
            <p className="muted">No stack: {r.stackError ?? 'capture failed'}</p>
          ) : (
            <ol className="frames" data-testid="stack-frames">
              {r.stack.map((f, i) => (
                <li key={i} className="frame">
                  <code className="fn">{f.function || '(anonymous)'}</code>
                  <span className="loc">
                    {f.file}:{f.line}:{f.column}
                  </span>
                  {f.language && f.language !== 'js' && <span className="pill">{f.language}</span>}
                </li>
              ))}
            </ol>
          )}
        </div>
      </div>
    </article>
  );
}
