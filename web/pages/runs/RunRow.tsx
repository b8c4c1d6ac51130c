/** One saved run in the runs table: select, name and metadata, verdict, what it ran, counts, stalls, delete. */
import { memo } from 'react';
import type { RunListItem } from '../../../shared/protocol/apiSchemas.ts';
import { normalizeCounts } from '../../../shared/requests/outcomes.ts';
import type { RunCounts } from '../../../shared/types.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RunWhere } from '../../components/RunWhere.tsx';
import { idBeside, runName } from '../../state/runName.ts';
import { href } from '../../state/router.ts';
import { FAILED_PARTS, partLabel } from '../../../shared/runView/runStory.ts';
import type { StopLike } from '../../../shared/requests/stopLabel.ts';
import { count, dateTime } from '../../../shared/format.ts';

const dur = (s: number | null) => (s === null ? '–' : s < 120 ? `${s.toFixed(1)} s` : `${(s / 60).toFixed(1)} min`);

interface RunRowProps {
  run: RunListItem;
  selected: boolean;
  onToggle: (id: string) => void;
  /** This row asks "Delete / Keep" instead of showing "delete". */
  confirming: boolean;
  setConfirming: (id: string | null) => void;
  /** null: this token may not delete runs, so the row offers no delete. */
  onDelete: ((id: string) => void) | null;
}

/**
 * Memoized: a page change re-renders the list at once with the rows it still shows (the route changes before the new
 * page's reply arrives); those rows are unchanged and are not drawn again (docs/performance.md#cold-loads).
 */
export const RunRow = memo(function RunRow({
  run: r,
  selected,
  onToggle,
  confirming,
  setConfirming,
  onDelete,
}: RunRowProps) {
  return (
    <tr data-testid="run-row" data-run-id={r.id} className={selected ? 'selected' : ''}>
      <td>
        <input
          type="checkbox"
          checked={selected}
          onChange={() => onToggle(r.id)}
          aria-label={`Select ${runName(r)} for comparison`}
        />
      </td>
      <td>
        <a href={href({ page: 'run', id: r.id })} className="run-link">
          {runName(r)}
        </a>
        <div className="muted small">
          {r.label && runName(r) !== r.label && <>{r.label} · </>}
          {idBeside(r) && <code data-testid="run-row-id">{r.id}</code>}
          {idBeside(r) && ' · '}
          {r.source} <RunWhere metadata={r.metadata} />
        </div>
      </td>
      <td>
        <StatusBadge verdict={r.verdict} status={r.status} />
      </td>
      <td className="small">{dateTime(r.startedAtMs ?? r.createdAtMs)}</td>
      <td className="small">
        {r.target ?? '–'}
        <div className="muted">
          {r.model ?? ''} · {r.dataset ?? '–'}
        </div>
      </td>
      <td className="num small">
        {r.maxConcurrency ?? '∞'} · {r.requestRate ?? '–'}
      </td>
      {/* A stop rule trips the breaker with fail-fast off too (docs/design.md#stop-rules). */}
      <td>{r.breaker.tripped ? 'tripped' : r.failFast ? 'on' : 'off'}</td>
      <td className="num small counts-cell">
        <span className={`c-completed${r.counts.completed === 0 ? ' zero' : ''}`} title="completed">
          {count(r.counts.completed)}
        </span>{' '}
        /{' '}
        <span className={`c-failed${r.counts.failed === 0 ? ' zero' : ''}`} title="failed">
          {count(r.counts.failed)}
        </span>
        {/* The parts of failed, in the run page's words (web/state/runStory.ts). */}
        <div className="muted" data-testid="run-row-parts">
          {failedParts(r.counts, r.breaker.stoppedBy)}
          of {count(r.counts.total)}
        </div>
      </td>
      <td className="num small">{dur(r.durationS)}</td>
      <td className="small">
        {r.stallCount > 0 ? `${count(r.stallCount)} · ${r.stallPhase ?? 'phase not inferred'}` : '–'}
      </td>
      {onDelete && (
        <td>
          <DeleteControl run={r} confirming={confirming} setConfirming={setConfirming} onDelete={onDelete} />
        </td>
      )}
    </tr>
  );
});

function DeleteControl({
  run: r,
  confirming,
  setConfirming,
  onDelete,
}: Pick<RunRowProps, 'run' | 'confirming' | 'setConfirming'> & { onDelete: (id: string) => void }) {
  if (confirming)
    return (
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
    );
  return (
    <button
      type="button"
      className="link"
      onClick={() => setConfirming(r.id)}
      disabled={r.status === 'running'}
      aria-label={`Delete ${runName(r)}`}
    >
      delete
    </button>
  );
}

/** "2 timed out, 58 cancelled after timeout, 50 unsent · " (the non-zero parts of failed, a stop named by its rule), or "". */
function failedParts(counts: Partial<RunCounts>, stop: StopLike): string {
  const c = normalizeCounts(counts);
  const parts = FAILED_PARTS.filter((p) => c[p.key] > 0).map((p) => `${count(c[p.key])} ${partLabel(p, stop)}`);
  return parts.length ? `${parts.join(', ')} · ` : '';
}
