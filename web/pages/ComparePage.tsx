/**
 * Compare two or more runs: verdicts and counts, the metric table with
 * deltas against the first run, the configs with differing keys
 * highlighted, and stall reports per phase across the runs.
 */
import { normalizeCounts } from '../../shared/outcomes.ts';
import { FAILED_PARTS } from '../state/runStory.ts';
import { useEffect, useState } from 'react';
import type { RunDetail, RunListItem } from '../../shared/apiSchemas.ts';
import { ApiError, getRun, listRuns } from '../api/rest.ts';
import { StallPhaseChart } from '../charts/StallPhaseChart.tsx';
import { MetricsTable } from '../components/MetricsTable.tsx';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { configDiff } from '../state/metricsTable.ts';
import { href, navigate } from '../state/router.ts';
import { stallsByPhase } from '../state/selectors.ts';
import { humanVerdict } from '../state/verdictWords.ts';

const nameOf = (d: RunDetail) => d.label || d.id;

class MissingRun extends Error {
  constructor(readonly id: string) {
    super(`No run with id ${id}`);
  }
}

export function ComparePage({ ids }: { ids: string[] }) {
  const [onlyDiff, setOnlyDiff] = useState(true);
  const [others, setOthers] = useState<RunListItem[]>([]);
  const key = ids.join(',');
  // What was loaded for which set of ids: a new set shows "loading" until its own reply lands.
  const [loaded, setLoaded] = useState<{ key: string; runs: RunDetail[] | null; error: unknown }>({
    key: '',
    runs: null,
    error: null,
  });
  const runs = loaded.key === key ? loaded.runs : null;
  const error = loaded.key === key ? loaded.error : null;

  useEffect(() => {
    let current = true;
    // A missing run is named, not reported as "something went wrong".
    const one = (id: string) =>
      getRun(id).catch((e: unknown) => {
        throw e instanceof ApiError && e.status === 404 ? new MissingRun(id) : e;
      });
    Promise.all(ids.map(one)).then(
      (r) => current && setLoaded({ key, runs: r, error: null }),
      (e: unknown) => current && setLoaded({ key, runs: null, error: e }),
    );
    listRuns({ limit: 50 }).then(
      (r) => setOthers(r.runs),
      () => setOthers([]),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const addRun = (
    <label className="add-run">
      Add a run{' '}
      <select
        value=""
        onChange={(e) => e.target.value && navigate({ page: 'compare', ids: [...ids, e.target.value] })}
        data-testid="compare-add"
      >
        <option value="">choose…</option>
        {others
          .filter((o) => !ids.includes(o.id))
          .map((o) => (
            <option key={o.id} value={o.id}>{`${o.label || o.id} — ${humanVerdict(o.verdict ?? o.status)}`}</option>
          ))}
      </select>
    </label>
  );

  if (ids.length === 0)
    return (
      <Empty>
        Select two or more runs on the <a href={href({ page: 'runs' })}>Runs</a> page to compare them. {addRun}
      </Empty>
    );
  if (error instanceof MissingRun)
    return (
      <Empty>
        No run with id {error.id}.{' '}
        <a href={href({ page: 'compare', ids: ids.filter((x) => x !== error.id) })}>Compare the others.</a>
      </Empty>
    );
  if (error) return <ErrorState error={error} />;
  if (!runs) return <Loading what="runs to compare" />;

  const metrics = runs.map((r) => r.summary?.metrics ?? {});
  const diff = configDiff(runs.map((r) => r.spec ?? r.config ?? {}));
  const shown = onlyDiff ? diff.filter((d) => d.differs) : diff;
  const stallRuns = runs.map((r) => ({
    name: nameOf(r),
    byPhase: stallsByPhase(r.stallReports.map((s) => s.report.phase)),
  }));
  return (
    <div className="compare-page" data-testid="compare-page">
      <div className="page-head">
        <h1>
          Compare {runs.length} run{runs.length === 1 ? '' : 's'}
        </h1>
        <span className="spacer" />
        {addRun}
      </div>
      {runs.length < 2 && <p className="notice">Add at least one more run to see differences.</p>}
      <div className="table-wrap">
        <table className="compare-summary">
          <thead>
            <tr>
              <th />
              {runs.map((r) => (
                <th key={r.id}>
                  <a href={href({ page: 'run', id: r.id })}>{nameOf(r)}</a>{' '}
                  <button
                    type="button"
                    className="link"
                    onClick={() => navigate({ page: 'compare', ids: ids.filter((x) => x !== r.id) })}
                    aria-label={`Remove ${nameOf(r)}`}
                  >
                    ×
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>verdict</th>
              {runs.map((r) => (
                <td key={r.id}>
                  <StatusBadge verdict={r.verdict} status={r.status} />
                </td>
              ))}
            </tr>
            <tr>
              <th>requests</th>
              {runs.map((r) => (
                <td key={r.id}>{r.counts.total}</td>
              ))}
            </tr>
            <tr>
              <th>completed</th>
              {runs.map((r) => (
                <td key={r.id} className="c-completed">
                  {r.counts.completed}
                </td>
              ))}
            </tr>
            <tr>
              <th>failed</th>
              {runs.map((r) => (
                <td key={r.id}>{r.counts.failed}</td>
              ))}
            </tr>
            {/* The parts of failed, named as on the run page's cards (web/state/runStory.ts). */}
            {FAILED_PARTS.map((p) => (
              <tr key={p.id} className="part">
                <th title={p.title}>… {p.label}</th>
                {runs.map((r) => (
                  <td key={r.id}>{normalizeCounts(r.counts)[p.key]}</td>
                ))}
              </tr>
            ))}
            <tr>
              <th>breaker</th>
              {runs.map((r) => (
                <td key={r.id}>
                  {r.breaker.tripped
                    ? `tripped by #${r.breaker.cause?.requestIndex}`
                    : r.failFast
                      ? 'armed, not tripped'
                      : 'off'}
                </td>
              ))}
            </tr>
            <tr>
              <th>stall reports</th>
              {runs.map((r) => (
                <td key={r.id}>
                  {r.stallCount}
                  {r.stallPhase ? ` (${r.stallPhase})` : ''}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
      <StallPhaseChart runs={stallRuns} />
      <section className="panel">
        <h2>Metrics</h2>
        <MetricsTable results={metrics} names={runs.map(nameOf)} />
      </section>
      <section className="panel">
        <h2>
          Configuration{' '}
          <label className="small">
            <input type="checkbox" checked={onlyDiff} onChange={(e) => setOnlyDiff(e.target.checked)} /> only
            differences
          </label>
        </h2>
        {shown.length === 0 ? (
          <p className="muted">{onlyDiff ? 'The configurations are the same.' : 'No configuration stored.'}</p>
        ) : (
          <table className="config-diff" data-testid="config-diff">
            <tbody>
              {shown.map((d) => (
                <tr key={d.key} className={d.differs ? 'differs' : ''}>
                  <th>
                    <code>{d.key}</code>
                  </th>
                  {d.values.map((v, i) => (
                    <td key={i}>
                      <code>{v ?? '–'}</code>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
