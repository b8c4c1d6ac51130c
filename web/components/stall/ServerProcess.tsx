/** One process of a py-spy capture: its threads, likely blocked ones first, idle ones folded. */
import type { ServerStacksReport, ServerThread } from '../../../shared/stalls/stallReport.ts';
import { orderThreads } from '../../state/serverStacks.ts';

export function ServerProcess({ p }: { p: ServerStacksReport['processes'][number] }) {
  const { likely, idle } = orderThreads(p);
  return (
    <section className="server-process" data-testid="server-process" data-pid={p.pid}>
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
