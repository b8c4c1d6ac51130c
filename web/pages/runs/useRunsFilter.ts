/**
 * The runs list's filters, which live in the URL: the filter the list is
 * loaded with, the text inputs (hooks/urlText.ts: into the URL after a
 * pause in typing), and `go` for a new view.
 */
import { useMemo } from 'react';
import type { RunFilter } from '../../api/rest.ts';
import { navigate, type RunsQuery } from '../../state/router.ts';
import { listFilter, parseMetaFilter } from '../../state/runsFilter.ts';
import { useUrlText } from '../../hooks/urlText.ts';

export function useRunsFilter(query: RunsQuery) {
  const { verdict, q, meta: metaQ, offset: offsetQ } = query;
  const metaFilter = useMemo(() => parseMetaFilter(metaQ), [metaQ]);
  const filter: RunFilter = useMemo(
    () => listFilter({ verdict, q, offset: offsetQ }, metaFilter),
    [verdict, q, metaFilter, offsetQ],
  );
  // A filter change is a new history entry (Back returns to the previous view); a new filter starts at page 1.
  const go = (change: RunsQuery) =>
    navigate({ page: 'runs', verdict, q, meta: metaQ, ...change, offset: change.offset || undefined });
  const [text, setText] = useUrlText(q, (v) => go({ q: v }));
  const [meta, setMeta] = useUrlText(metaQ, (v) => go({ meta: v }), true);

  return { filter, metaFilter, go, text, setText, meta, setMeta };
}
