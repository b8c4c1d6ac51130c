/** The board's filters: metadata pairs (typed, then put in the URL) and the dates the runs happened between. */
import { navigate, type StallsQuery } from '../../state/router.ts';
import { useUrlText } from '../../hooks/urlText.ts';
import { SearchField } from '../../components/SearchField.tsx';

export function StallFilters({ query }: { query: StallsQuery }) {
  const go = (change: StallsQuery) => navigate({ page: 'stalls', ...query, ...change });
  const [meta, setMeta] = useUrlText(query.meta, (v) => go({ meta: v }), true);
  return (
    <div className="filters" role="search">
      <SearchField
        label="Metadata"
        value={meta}
        onChange={setMeta}
        placeholder="ci_pipeline=vllm-omni ci_node=mi300-3"
        testId="stalls-meta"
      />
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
