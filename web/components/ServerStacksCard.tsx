/**
 * One py-spy capture of the server's process tree in the blocked-phase view:
 * the Code2Wav phase strip with the inferred phase lit (saying it was
 * inferred, from which frame and rule), the capture's notes, then every
 * process with its threads — likely blocked ones first, idle ones folded —
 * and Copy for the whole dump as text.
 */
import { useState } from 'react';
import { C2W_PHASES } from '../../shared/types.ts';
import type { ServerStacksReport, ServerThread } from '../../shared/stallReport.ts';
import { frameLine, orderThreads, reasonText, serverStacksText } from '../state/serverStacks.ts';

export function ServerStacksCard({
  report: r,
  onFindRequest,
}: {
  report: ServerStacksReport;
  onFindRequest: (id: string) => void;
}) {
  const [copied, setCopied] = useState(false);
  const stuck = (C2W_PHASES as readonly string[]).indexOf(r.phase);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(serverStacksText(r));
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  const threads = r.processes.reduce((n, p) => n + p.threads.length, 0);
  return (
    <article className="stall server-stacks" data-testid="server-stacks" data-phase={r.phase}>
      <header className="stall-head">
        <span className="stall-title">
          Server stacks #{r.capture} · py-spy{r.native ? ' --native' : ''} · pid {r.rootPid}
        </span>
        <span className="stall-age">{reasonText(r.reason)}</span>
        <span className={`pill ${r.inferred ? 'pill-bad' : ''}`}>
          {r.inferred ? `inferred: ${r.phase}` : 'phase not inferred'}
        </span>
        <button type="button" onClick={copy} data-testid="copy-server-stacks">
          {copied ? 'Copied' : 'Copy'}
        </button>
      </header>
      <ol className="phase-strip" aria-label="Code2Wav phases (inferred)">
        {C2W_PHASES.map((p, i) => (
          <li
            key={p}
            className={`ps ph-${i}${i === stuck ? ' stuck' : ''}${i < stuck ? ' done' : ''}`}
            aria-current={i === stuck ? 'step' : undefined}
          >
            {p.replace(/_/g, ' ')}
          </li>
        ))}
      </ol>
      <p className="muted" data-testid="inferred-from">
        {r.inferred ? (
          <>
            Phase <strong>{r.phase}</strong> inferred from frame <code>{frameLine(r.inferred.frame)}</code> in pid{' '}
            {r.inferred.pid}, thread {r.inferred.tid} “{r.inferred.threadName}” (rule {r.inferred.rule}).
          </>
        ) : (
          <>No frame matched a phase rule.</>
        )}{' '}
        {r.processes.length} processes, {threads} threads, read in {r.durationMs} ms.
      </p>
      {r.notes.length > 0 && (
        <ul className="notes" data-testid="server-stacks-notes">
          {r.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      {r.requestIds.length > 0 && (
        <p>
          Requests in flight:{' '}
          {r.requestIds.map((id) => (
            <button key={id} type="button" className="link" onClick={() => onFindRequest(id)}>
              {id}
            </button>
          ))}
        </p>
      )}
      {r.processes.map((p) => {
        const { likely, idle } = orderThreads(p);
        return (
          <section key={p.pid} className="server-process" data-testid="server-process" data-pid={p.pid}>
            <h3>
              pid {p.pid}
              {p.ppid !== null ? ` (child of ${p.ppid})` : ''} <code className="muted">{p.cmdline}</code>
            </h3>
            {p.error && (
              <p className="muted">
                {p.error.code}: {p.error.message}
              </p>
            )}
            {likely.map((t) => (
              <ThreadStack key={t.tid} t={t} />
            ))}
            {idle.length > 0 && (
              <details>
                <summary>{idle.length} idle threads</summary>
                {idle.map((t) => (
                  <ThreadStack key={t.tid} t={t} />
                ))}
              </details>
            )}
          </section>
        );
      })}
    </article>
  );
}

function ThreadStack({ t }: { t: ServerThread }) {
  return (
    <div className="server-thread" data-testid="server-thread" data-phase={t.phase ?? ''}>
      <div>
        <strong>{t.name || '(unnamed)'}</strong> <span className="muted">tid {t.tid}</span>{' '}
        <span className="pill">{t.active ? 'active' : 'idle'}</span>
        {t.ownsGil && <span className="pill">GIL</span>}
        {t.phase && <span className="pill pill-bad">{t.phase}</span>}
      </div>
      <ol className="frames">
        {t.frames.map((f, i) => (
          <li key={i} className="frame">
            <code className="fn">{f.function || '(anonymous)'}</code>
            <span className="loc">
              {f.file}:{f.line}
            </span>
            {f.language === 'native' && <span className="pill">native</span>}
          </li>
        ))}
        {t.framesDropped ? <li className="muted">… {t.framesDropped} more frames</li> : null}
      </ol>
    </div>
  );
}
