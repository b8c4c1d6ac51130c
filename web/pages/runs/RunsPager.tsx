/** Newer / older pages of the runs list, and which runs of how many are shown. */
import type { RunsQuery } from '../../state/router.ts';
import { PAGE } from '../../state/runsFilter.ts';

export function RunsPager({
  offset,
  shown,
  total,
  go,
}: {
  offset: number;
  shown: number;
  total: number;
  go: (change: RunsQuery) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => go({ offset: Math.max(0, offset - PAGE) })}>
        ← Newer
      </button>
      <span>
        {offset + 1}–{offset + shown} of {total}
      </span>
      <button type="button" disabled={offset + PAGE >= total} onClick={() => go({ offset: offset + PAGE })}>
        Older →
      </button>
    </nav>
  );
}
