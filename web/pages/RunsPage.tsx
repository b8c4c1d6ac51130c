/**
 * Runs (home): saved runs newest first, with verdicts, counts and the phase
 * most stalled in; filter by verdict, text and metadata; paging; select two
 * or more to compare; import a vLLM result by file picker or drag and drop;
 * delete with confirmation. Refreshes when a live run changes state. The
 * filters and the page live in the URL (`#/?verdict=…&q=…&meta=…&offset=…`):
 * a filtered view can be shared, and Back returns to the previous filter.
 */
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { deleteRun, type RunFilter } from '../api/rest.ts';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { href, type RunsQuery } from '../state/router.ts';
import { ImportBox } from './runs/ImportBox.tsx';
import { RunFilters } from './runs/RunFilters.tsx';
import { RunsPager } from './runs/RunsPager.tsx';
import { RunsTable } from './runs/RunsTable.tsx';
import { useRunList } from './runs/useRunList.ts';
import { useRunsFilter } from './runs/useRunsFilter.ts';
import { noMatchText, type MetaFilter } from '../state/runsFilter.ts';
import { useAllowed } from '../hooks/useScope.ts';

export function RunsPage({ query }: { query: RunsQuery }) {
  const { filter, metaFilter, go, text, setText, meta, setMeta } = useRunsFilter(query);
  const { data, error, setError, load } = useRunList(filter);
  const [selected, setSelected] = useState<string[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const allowed = useAllowed();

  // Stable callbacks, so the memoized rows are not drawn again when only the route or the notice changed.
  const toggle = useCallback(
    (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id])),
    [],
  );
  const remove = async (id: string) => {
    try {
      await deleteRun(id);
      setSelected((s) => s.filter((x) => x !== id));
      setNotice(`Deleted ${id}.`);
      load();
    } catch (e) {
      setError(e);
    }
  };
  const latestRemove = useRef(remove);
  useLayoutEffect(() => {
    latestRemove.current = remove;
  });
  const onDelete = useCallback((id: string) => void latestRemove.current(id), []);

  const offset = filter.offset ?? 0;
  return (
    <div className="runs-page" data-testid="runs-page">
      <div className="page-head">
        <h1>Runs</h1>
        <span className="spacer" />
        {allowed.manageRuns && (
          <a className="button primary" href={href({ page: 'new' })}>
            New run
          </a>
        )}
      </div>
      <RunFilters
        filter={filter}
        go={go}
        text={text}
        setText={setText}
        meta={meta}
        setMeta={setMeta}
        selected={selected}
      />
      {/* An import selects nothing: what to compare is the maintainer's choice, not a side effect. */}
      {allowed.importResults && (
        <ImportBox
          onImported={(_ids, msg) => {
            setNotice(msg);
            load();
          }}
        />
      )}
      {notice && (
        <p className="notice" role="status" data-testid="notice">
          {notice}
        </p>
      )}
      {error ? (
        <ErrorState error={error} retry={load} />
      ) : !data ? (
        <Loading what="runs" />
      ) : data.runs.length === 0 || metaFilter.bad.length > 0 ? (
        <NoRuns filter={filter} meta={metaFilter} canStart={allowed.manageRuns} />
      ) : (
        <>
          <RunsTable
            runs={data.runs}
            selected={selected}
            onToggle={toggle}
            onDelete={allowed.manageRuns ? onDelete : null}
          />
          <RunsPager offset={offset} shown={data.runs.length} total={data.total} go={go} />
        </>
      )}
    </div>
  );
}

function NoRuns({ filter, meta, canStart }: { filter: RunFilter; meta: MetaFilter; canStart: boolean }) {
  return (
    <Empty>
      {filter.q || filter.verdict || meta.pairs.length || meta.bad.length ? (
        <span data-testid="no-match">{noMatchText({ verdict: filter.verdict, q: filter.q, meta })}</span>
      ) : (
        <>
          No runs yet.{' '}
          {canStart && (
            <>
              <a href={href({ page: 'new' })}>Start one</a> or import a vLLM result file.
            </>
          )}
        </>
      )}
    </Empty>
  );
}
