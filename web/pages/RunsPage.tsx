/**
 * Runs (home): saved runs newest first, with verdicts, counts and the phase
 * most stalled in; filter by verdict, text and metadata; paging; select two
 * or more to compare; import a vLLM result by file picker or drag and drop;
 * delete with confirmation. Refreshes when a live run changes state. The
 * filters and the page live in the URL (`#/?verdict=…&q=…&meta=…&offset=…`):
 * a filtered view can be shared, and Back returns to the previous filter.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { RunListReply } from '../../shared/apiSchemas.ts';
import { deleteRun, listRuns, type RunFilter } from '../api/rest.ts';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { useAppState } from '../hooks/services.ts';
import { href, navigate, type RunsQuery } from '../state/router.ts';
import { humanVerdict } from '../state/verdictWords.ts';
import { ImportBox } from './ImportBox.tsx';
import { RunsTable } from './RunsTable.tsx';

const PAGE = 25;
const VERDICTS = ['', 'passed', 'failed', 'failed_closed', 'errored', 'interrupted'];

const metaPairs = (meta: string | undefined) => (meta ?? '').split(/[\s,]+/).filter((m) => m.includes('='));

export function RunsPage({ query }: { query: RunsQuery }) {
  const { verdict, q, meta: metaQ, offset: offsetQ } = query;
  const filter: RunFilter = useMemo(
    () => ({ verdict, q, metadata: metaPairs(metaQ), offset: offsetQ ?? 0, limit: PAGE }),
    [verdict, q, metaQ, offsetQ],
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
  const [data, setData] = useState<RunListReply | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  // A change in any active run's status or verdict is a reason to reload the list.
  const activeKey = useAppState((s) =>
    Object.values(s.active)
      .map((r) => `${r.runId}:${r.status}:${r.verdict}`)
      .join('|'),
  );

  const load = useCallback(() => {
    listRuns(filter).then((d) => {
      setError(null);
      setData(d);
    }, setError);
  }, [filter]);
  useEffect(load, [load, activeKey]);
  // Counts of runs still going change without the active set changing: refresh them every few seconds.
  const anyRunning = data?.runs.some((r) => r.status === 'running') ?? false;
  useEffect(() => {
    if (!anyRunning) return;
    const id = setInterval(() => void listRuns(filter).then(setData, () => {}), 3000);
    return () => clearInterval(id);
  }, [anyRunning, filter]);

  // Debounce the text filters so typing does not fire a request (nor a history entry) per key.
  useEffect(() => {
    if ((text || undefined) === q && (meta.trim() || undefined) === metaQ) return;
    const id = setTimeout(() => go({ q: text || undefined, meta: meta.trim() || undefined }), 250);
    return () => clearTimeout(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text, meta, q, metaQ]);

  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
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

  const offset = filter.offset ?? 0;
  return (
    <div className="runs-page" data-testid="runs-page">
      <div className="page-head">
        <h1>Runs</h1>
        <span className="spacer" />
        <a className="button primary" href={href({ page: 'new' })}>
          New run
        </a>
      </div>
      <div className="filters" role="search">
        <label>
          Verdict{' '}
          <select
            value={filter.verdict ?? ''}
            onChange={(e) => go({ verdict: e.target.value || undefined })}
            data-testid="filter-verdict"
          >
            {VERDICTS.map((v) => (
              <option key={v} value={v}>
                {v ? humanVerdict(v) : 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search{' '}
          <input
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="id, label, model, target"
            data-testid="filter-text"
          />
        </label>
        <label>
          Metadata{' '}
          <input
            type="search"
            value={meta}
            onChange={(e) => setMeta(e.target.value)}
            placeholder="build=123 node=mi300-7"
          />
        </label>
        <span className="spacer" />
        <button
          type="button"
          disabled={selected.length < 2}
          onClick={() => navigate({ page: 'compare', ids: selected })}
          data-testid="compare-selected"
        >
          Compare {selected.length >= 2 ? `${selected.length} runs` : '(select 2+)'}
        </button>
      </div>
      <ImportBox
        onImported={(ids, msg) => {
          setNotice(msg);
          load();
          if (ids.length === 1) setSelected((s) => [...s, ids[0]]);
        }}
      />
      {notice && (
        <p className="notice" role="status" data-testid="notice">
          {notice}
        </p>
      )}
      {error ? (
        <ErrorState error={error} retry={load} />
      ) : !data ? (
        <Loading what="runs" />
      ) : data.runs.length === 0 ? (
        <Empty>
          {filter.q || filter.verdict || filter.metadata?.length ? (
            'No run matches these filters.'
          ) : (
            <>
              No runs yet. <a href={href({ page: 'new' })}>Start one</a> or import a vLLM result file.
            </>
          )}
        </Empty>
      ) : (
        <>
          <RunsTable runs={data.runs} selected={selected} onToggle={toggle} onDelete={remove} />
          <nav className="pager" aria-label="Pages">
            <button type="button" disabled={offset === 0} onClick={() => go({ offset: Math.max(0, offset - PAGE) })}>
              ← Newer
            </button>
            <span>
              {offset + 1}–{offset + data.runs.length} of {data.total}
            </span>
            <button type="button" disabled={offset + PAGE >= data.total} onClick={() => go({ offset: offset + PAGE })}>
              Older →
            </button>
          </nav>
        </>
      )}
    </div>
  );
}
