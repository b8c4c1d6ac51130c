/** The board's filters: metadata pairs (typed, then put in the URL) and the dates the runs happened between. */
import { useEffect, useState } from 'react';
import { navigate, type StallsQuery } from '../../state/router.ts';

export function StallFilters({ query }: { query: StallsQuery }) {
  const [meta, setMeta] = useState(query.meta ?? '');
  const [shown, setShown] = useState(query.meta);
  // Back, forward or a pasted link: the input shows the URL's filter.
  if (shown !== query.meta) {
    setShown(query.meta);
    setMeta(query.meta ?? '');
  }
  const go = (change: StallsQuery) => navigate({ page: 'stalls', ...query, ...change });
  // Typing does not fire a request (nor a history entry) per key.
  useEffect(() => {
    if ((meta.trim() || undefined) === query.meta) return;
    const id = setTimeout(() => go({ meta: meta.trim() || undefined }), 250);
    return () => clearTimeout(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [meta, query.meta]);
  return (
    <div className="filters" role="search">
      <label>
        Metadata{' '}
        <input
          type="search"
          value={meta}
          onChange={(e) => setMeta(e.target.value)}
          placeholder="ci_pipeline=vllm-omni ci_node=mi300-3"
          data-testid="stalls-meta"
        />
      </label>
      <label>
        From{' '}
        <input type="date" value={query.since ?? ''} onChange={(e) => go({ since: e.target.value || undefined })} />
      </label>
      <label>
        Before{' '}
        <input type="date" value={query.until ?? ''} onChange={(e) => go({ until: e.target.value || undefined })} />
      </label>
    </div>
  );
}
