/**
 * Charts of one run (Recharts, animations off: the data changes every
 * batch while live): active requests and outcomes over time, and the
 * distributions of TTFT, E2E latency and audio TTFP.
 */
import { memo, useMemo } from 'react';
import type { RequestView } from '../../shared/runView/runModel.ts';
import { exactPeak, histogram, latenciesMs, outcomeSeries, timeAxis } from '../state/selectors.ts';
import { werHistogram, werValues } from '../state/accuracy.ts';
import { useThrottled } from '../hooks/redraw.ts';
import { LatencyHistogram, WerHistogram } from './Histograms.tsx';
import { ConcurrencyChart, OutcomesChart } from './OverTimeCharts.tsx';

/** The result's two concurrency figures, shown beside the chart (null while live). */
type ResultMetrics = Record<string, unknown> | null;

export function RunCharts({
  rows,
  endMs,
  live,
  metrics = null,
}: {
  rows: readonly RequestView[];
  endMs: number;
  live: boolean;
  metrics?: ResultMetrics;
}) {
  // Charts are the costliest part of a redraw (Recharts re-renders its whole tree): while live they
  // follow the data every 2 s, and the memoized view below skips the redraws in between. They redraw
  // off screen too: a chart held back until scrolled to showed its first frame (an empty 0–1 s axis)
  // in a full-page screenshot or a printout, and after the run ended, until the page was reloaded.
  const t = useThrottled(
    useMemo(() => ({ rows, endMs }), [rows, endMs]),
    live ? 2000 : 0,
  );
  return <ChartsView rows={t.rows} endMs={t.endMs} live={live} metrics={metrics} />;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const ChartsView = memo(function ChartsView({
  rows,
  endMs,
  live,
  metrics,
}: {
  rows: readonly RequestView[];
  endMs: number;
  live: boolean;
  metrics: ResultMetrics;
}) {
  // Bucket the run into whole seconds of domain so a live chart does not jitter on every tick; buckets
  // and ticks at round steps (0.5 s, 1 s, 2 s…).
  const end = Math.max(1000, Math.ceil(endMs / 1000) * 1000);
  const axis = useMemo(() => timeAxis(end, Math.min(60, end / 100)), [end]);
  const series = useMemo(() => outcomeSeries(rows, axis.endMs, axis.buckets), [rows, axis]);
  // The exact peak of the sweep the chart plots (the rows' send and end times); the result's key when there are
  // no timed rows (an import), which also covers runs stored before the key counted failed requests.
  const timed = rows.some((r) => r.sentT !== null);
  const exact = timed ? exactPeak(rows) : (num(metrics?.max_concurrent_requests_exact) ?? 0);
  const vllm = num(metrics?.max_concurrent_requests);
  const dists = useMemo(
    () =>
      [
        ['TTFT (ms)', histogram(latenciesMs(rows, 'ttftS'))],
        ['E2E latency (ms)', histogram(latenciesMs(rows, 'e2elS'))],
        ['Audio TTFP (ms)', histogram(latenciesMs(rows, 'audioTtfpS'))],
      ] as const,
    [rows],
  );
  const wers = useMemo(() => werHistogram(werValues(rows)), [rows]);
  // What the charts were given, as data: a test compares the live page's with a reload's.
  const drawn = useMemo(
    () => JSON.stringify({ endMs: axis.endMs, series, exact, vllm, dists: dists.map(([, bins]) => bins), wers }),
    [axis, series, exact, vllm, dists, wers],
  );
  return (
    <section className="charts" aria-label="Charts" data-testid="charts" data-drawn={drawn}>
      <ConcurrencyChart series={series} axis={axis} exact={exact} vllm={vllm} />
      <OutcomesChart series={series} axis={axis} />
      {dists.map(([title, bins]) => (
        <LatencyHistogram key={title} title={title} bins={bins} live={live} />
      ))}
      {wers.length > 0 && <WerHistogram bins={wers} />}
    </section>
  );
});
