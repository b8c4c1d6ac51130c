/**
 * Compare two or more runs: verdicts and counts, when and where each ran and
 * the server's identity, their timelines side by side, the metric table with
 * deltas against the first run, the configs with differing keys
 * highlighted, and stall reports per phase across the runs.
 */
import { lazy, Suspense, useState } from 'react';
import { MetricsTable } from '../components/MetricsTable.tsx';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { configDiff } from '../state/metricsTable.ts';
import { href } from '../state/router.ts';
import { stallsByPhase } from '../state/selectors.ts';
import { AddRunPicker } from './compare/AddRunPicker.tsx';
import { CompareSummary } from './compare/CompareSummary.tsx';
import { CompareTimelines } from './compare/CompareTimelines.tsx';
import { ConfigDiff } from './compare/ConfigDiff.tsx';
import { nameOf } from './compare/runName.ts';
import { MissingRun, useCompareRuns } from './compare/useCompareRuns.ts';

// Recharts is ~420 KB of script: the summary, timelines and tables draw first, the chart when its chunk arrives.
const StallPhaseChart = lazy(() =>
  import('../charts/StallPhaseChart.tsx').then((m) => ({ default: m.StallPhaseChart })),
);

/** Where the chart will be, as tall as it, so nothing below moves when it arrives. */
function ChartPending() {
  return (
    <figure className="chart wide" aria-busy="true" data-testid="stall-phase-chart-pending">
      <figcaption>Stall reports per Code2Wav phase</figcaption>
      <div style={{ height: 220 }} />
    </figure>
  );
}

export function ComparePage({ ids }: { ids: string[] }) {
  // Here, not in ConfigDiff: the choice outlives the "loading" between two sets of runs.
  const [onlyDiff, setOnlyDiff] = useState(true);
  const { runs, error } = useCompareRuns(ids);
  const addRun = <AddRunPicker ids={ids} />;

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
      <CompareSummary runs={runs} ids={ids} />
      <CompareTimelines runs={runs} />
      <Suspense fallback={<ChartPending />}>
        <StallPhaseChart runs={stallRuns} />
      </Suspense>
      <section className="panel">
        <h2>Metrics</h2>
        <MetricsTable results={metrics} names={runs.map(nameOf)} stops={runs.map((r) => r.breaker.stoppedBy)} />
      </section>
      <ConfigDiff diff={diff} onlyDiff={onlyDiff} setOnlyDiff={setOnlyDiff} />
    </div>
  );
}
