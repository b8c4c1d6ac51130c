/** The table of saved runs; delete asks for confirmation in place. */
import { useState } from 'react';
import type { RunListItem } from '../../shared/apiSchemas.ts';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { href } from '../state/router.ts';

const when = (ms: number | null) => (ms ? new Date(ms).toLocaleString() : '–');
const dur = (s: number | null) => (s === null ? '–' : s < 120 ? `${s.toFixed(1)} s` : `${(s / 60).toFixed(1)} min`);

export function RunsTable({
  runs,
  selected,
  onToggle,
  onDelete,
}: {
  runs: RunListItem[];
  selected: string[];
  onToggle: (id: string) => void;
  onDelete: (id: string) => void;
}) {
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <div className="table-wrap">
      <table className="runs" data-testid="runs-table">
        <thead>
          <tr>
            <th>
              <span className="sr-only">Select</span>
            </th>
            <th>Run</th>
            <th>Verdict</th>
            <th>Started</th>
            <th>Target · dataset</th>
            <th className="num">Conc. · rate</th>
            <th>Fail-fast</th>
            <th className="num" title="completed / failed / timed out / cancelled after timeout / not dispatched">
              Counts
              <div className="muted small">ok / failed / timed out / cancelled / not sent</div>
            </th>
            <th className="num">Duration</th>
            <th>Stalls</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr
              key={r.id}
              data-testid="run-row"
              data-run-id={r.id}
              className={selected.includes(r.id) ? 'selected' : ''}
            >
              <td>
                <input
                  type="checkbox"
                  checked={selected.includes(r.id)}
                  onChange={() => onToggle(r.id)}
                  aria-label={`Select ${r.label ?? r.id} for comparison`}
                />
              </td>
              <td>
                <a href={href({ page: 'run', id: r.id })} className="run-link">
                  {r.label || r.id}
                </a>
                <div className="muted small">
                  {r.id} · {r.source}
                  {Object.entries(r.metadata)
                    .slice(0, 4)
                    .map(([k, v]) => (
                      <span key={k} className="pill">
                        {k}={v}
                      </span>
                    ))}
                </div>
              </td>
              <td>
                <StatusBadge verdict={r.verdict} status={r.status} />
              </td>
              <td className="small">{when(r.startedAtMs ?? r.createdAtMs)}</td>
              <td className="small">
                {r.target ?? '–'}
                <div className="muted">
                  {r.model ?? ''} · {r.dataset ?? '–'}
                </div>
              </td>
              <td className="num small">
                {r.maxConcurrency ?? '∞'} · {r.requestRate ?? '–'}
              </td>
              <td>{r.failFast ? (r.breaker.tripped ? 'tripped' : 'on') : 'off'}</td>
              <td className="num small counts-cell">
                <span className="c-completed" title="completed">
                  {r.counts.completed}
                </span>{' '}
                /{' '}
                <span className="c-failed" title="failed">
                  {r.counts.failed}
                </span>{' '}
                /{' '}
                <span className="c-timed_out" title="timed out">
                  {r.counts.timedOut}
                </span>{' '}
                /{' '}
                <span className="c-cancelled_after_timeout" title="cancelled after timeout">
                  {r.counts.cancelledAfterTimeout}
                </span>{' '}
                /{' '}
                <span className="c-not_dispatched" title="not dispatched">
                  {r.counts.notDispatched}
                </span>
                <div className="muted">of {r.counts.total}</div>
              </td>
              <td className="num small">{dur(r.durationS)}</td>
              <td className="small">{r.stallCount > 0 ? `${r.stallCount} · ${r.stallPhase ?? '?'}` : '–'}</td>
              <td>
                {confirming === r.id ? (
                  <span className="confirm">
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        setConfirming(null);
                        onDelete(r.id);
                      }}
                      data-testid="confirm-delete"
                    >
                      Delete
                    </button>
                    <button type="button" onClick={() => setConfirming(null)}>
                      Keep
                    </button>
                  </span>
                ) : (
                  <button
                    type="button"
                    className="link"
                    onClick={() => setConfirming(r.id)}
                    disabled={r.status === 'running'}
                    aria-label={`Delete ${r.label ?? r.id}`}
                  >
                    delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
