/**
 * The runs list's filters, which live in the URL: the filter the list is
 * loaded with, the text inputs (debounced into the URL so typing does not
 * fire a request, nor a history entry, per key), and `go` for a new view.
 */
import { useEffect, useMemo, useState } from 'react';
import type { RunFilter } from '../../api/rest.ts';
import { navigate, type RunsQuery } from '../../state/router.ts';
import { parseMetaFilter } from '../../state/runsFilter.ts';

export const PAGE = 25;

export function useRunsFilter(query: RunsQuery) {
  const { verdict, q, meta: metaQ, offset: offsetQ } = query;
  const metaFilter = useMemo(() => parseMetaFilter(metaQ), [metaQ]);
  const filter: RunFilter = useMemo(
    () => ({ verdict, q, metadata: metaFilter.pairs, offset: offsetQ ?? 0, limit: PAGE }),
    [verdict, q, metaFilter, offsetQ],
  );
  // A filter change is a new history entry (Back returns to the previous view); a new filter starts at page 1.
  const go = (change: RunsQuery) =>
    navigate({ page: 'runs', verdict, q, meta: metaQ, ...change, offset: change.offset || undefined });
  const [text, setText] = useState(q ?? '');
  const [meta, setMeta] = useState(metaQ ?? '');
  // Back, forward or a pasted link: the inputs show the URL's filters.
  const [shown, setShown] = useState({ q, metaQ });
  if (shown.q !== q || shown.metaQ !== metaQ) {
    setShown({ q, metaQ });
    if (shown.q !== q) setText(q ?? '');
    if (shown.metaQ !== metaQ) setMeta(metaQ ?? '');
  }

  // Debounce the text filters so typing does not fire a request (nor a history entry) per key.
  useEffect(() => {
    if ((text || undefined) === q && (meta.trim() || undefined) === metaQ) return;
    const id = setTimeout(() => go({ q: text || undefined, meta: meta.trim() || undefined }), 250);
    return () => clearTimeout(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text, meta, q, metaQ]);

  return { filter, metaFilter, go, text, setText, meta, setMeta };
}
