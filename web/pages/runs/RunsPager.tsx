/**
 * The runs list's pages: newest and oldest at once (a year of CI history is ~800 pages), one page newer or older, and
 * any page by number; which runs of how many are shown.
 */
import { useState } from 'react';
import type { RunsQuery } from '../../state/router.ts';
import { lastPageOffset, PAGE, pageOffset } from '../../state/runsFilter.ts';

const count = new Intl.NumberFormat('en-US');

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
  const last = lastPageOffset(total);
  const pages = last / PAGE + 1;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => go({ offset: 0 })}>
        ⇤ Newest
      </button>
      <button type="button" disabled={offset === 0} onClick={() => go({ offset: Math.max(0, offset - PAGE) })}>
        ← Newer
      </button>
      <span data-testid="pager-shown">
        {count.format(offset + 1)}–{count.format(offset + shown)} of {count.format(total)}
      </span>
      <button type="button" disabled={offset + PAGE >= total} onClick={() => go({ offset: offset + PAGE })}>
        Older →
      </button>
      <button type="button" disabled={offset >= last} onClick={() => go({ offset: last })}>
        Oldest ⇥
      </button>
      {pages > 2 && <PageField page={Math.floor(offset / PAGE) + 1} pages={pages} go={go} total={total} />}
    </nav>
  );
}

/** "Page [n] of m": a number typed and Enter opens that page (clamped to the pages there are). */
function PageField({
  page,
  pages,
  total,
  go,
}: {
  page: number;
  pages: number;
  total: number;
  go: (change: RunsQuery) => void;
}) {
  // The field holds what is typed until Enter; a new page shown starts it again from that page.
  const [typed, setTyped] = useState<{ page: number; text: string }>({ page, text: String(page) });
  const text = typed.page === page ? typed.text : String(page);
  return (
    <form
      className="page-field"
      onSubmit={(e) => {
        e.preventDefault();
        const offset = pageOffset(text, total);
        if (offset !== null) go({ offset });
      }}
    >
      <label>
        Page{' '}
        <input
          type="number"
          inputMode="numeric"
          min={1}
          max={pages}
          value={text}
          onChange={(e) => setTyped({ page, text: e.target.value })}
        />
      </label>{' '}
      of {count.format(pages)}
    </form>
  );
}
