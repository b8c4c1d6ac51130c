/**
 * Charts of one run (Recharts, animations off: the data changes every
 * batch while live): active requests and outcomes over time, and the
 * distributions of TTFT, E2E latency and audio TTFP.
 */
import { memo, useMemo, useRef } from 'react';
import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { RequestView } from '../state/runModel.ts';
import { exactPeak, histogram, latenciesMs, outcomeSeries, timeAxis, type Bin } from '../state/selectors.ts';
import { werHistogram, werValues } from '../state/accuracy.ts';
import { useInView, useThrottled } from '../hooks/redraw.ts';

const AXIS = { stroke: 'var(--muted)', fontSize: 11 };
const TIP = { contentStyle: { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)' } };
// Recharts' default hover band is a light grey (#ccc) block, glaring on the dark panel: a tint of the text colour instead.
const BAR_CURSOR = { fill: 'var(--hover)', stroke: 'none' };
const LINE_CURSOR = { stroke: 'var(--muted)' };

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
  // follow the data every 2 s, and the memoized view below skips the redraws in between.
  // Off screen (below the timeline at 1280×800) they do not redraw at all until scrolled to.
  const box = useRef<HTMLDivElement>(null);
  const inView = useInView(box);
  const t = useThrottled(
    useMemo(() => ({ rows, endMs }), [rows, endMs]),
    live ? 2000 : 0,
    !inView,
  );
  return (
    <div ref={box}>
      <ChartsView rows={t.rows} endMs={t.endMs} live={live} metrics={metrics} />
    </div>
  );
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const binRange = (b: Bin | undefined) =>
  b ? `${b.from.toLocaleString('en-US')}–${b.to.toLocaleString('en-US')} ms` : '';

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
  const fmtS = (s: number) => `${Number(s.toFixed(3))}s`;
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
  return (
    <section className="charts" aria-label="Charts" data-testid="charts">
      <figure
        className="chart"
        data-testid="concurrency-chart"
        data-plotted-peak={series.reduce((m, p) => Math.max(m, p.inFlight), 0)}
      >
        <figcaption>
          Active requests over time{' '}
          <span className="muted" data-testid="concurrency-figures" data-exact={exact} data-vllm={vllm ?? ''}>
            — peak <b>{exact}</b> at one instant (max_concurrent_requests_exact)
            {vllm !== null && (
              <>
                ; vLLM's max_concurrent_requests <b>{vllm}</b>
              </>
            )}
          </span>
          <div className="muted small" data-testid="concurrency-note">
            vLLM counts a request in every one-second bucket it is active in, so requests that follow each other within
            a second add up, and it counts completed requests only; the chart plots the exact count.
          </div>
        </figcaption>
        <ResponsiveContainer width="100%" height={180}>
          <AreaChart data={series} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid stroke="var(--grid)" vertical={false} />
            <XAxis dataKey="s" tick={AXIS} tickFormatter={fmtS} ticks={axis.ticksS} interval={0} />
            <YAxis allowDecimals={false} tick={AXIS} />
            <Tooltip {...TIP} cursor={LINE_CURSOR} labelFormatter={(s) => `${Number(s).toFixed(1)} s`} />
            <Area
              type="stepAfter"
              dataKey="inFlight"
              name="active"
              stroke="var(--c-inflight)"
              fill="var(--c-inflight)"
              fillOpacity={0.25}
              isAnimationActive={false}
            />
          </AreaChart>
        </ResponsiveContainer>
      </figure>
      <figure className="chart">
        <figcaption>Completions, failures, timeouts, cancellations</figcaption>
        <ResponsiveContainer width="100%" height={180}>
          <BarChart data={series} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid stroke="var(--grid)" vertical={false} />
            <XAxis dataKey="s" tick={AXIS} tickFormatter={fmtS} ticks={axis.ticksS} interval={0} />
            <YAxis allowDecimals={false} tick={AXIS} />
            <Tooltip {...TIP} cursor={BAR_CURSOR} labelFormatter={(s) => `${Number(s).toFixed(1)} s`} />
            <Legend wrapperStyle={{ fontSize: 11 }} />
            <Bar dataKey="completed" stackId="o" fill="var(--c-completed)" isAnimationActive={false} />
            <Bar dataKey="failed" stackId="o" fill="var(--c-failed)" isAnimationActive={false} />
            <Bar dataKey="timedOut" name="timed out" stackId="o" fill="var(--c-timed_out)" isAnimationActive={false} />
            <Bar dataKey="cancelled" stackId="o" fill="var(--c-cancelled)" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      {dists.map(([title, bins]) => (
        <figure className="chart small" key={title}>
          <figcaption>{title}</figcaption>
          {bins.length === 0 ? (
            <p className="muted chart-empty">
              {live ? 'No completed requests yet.' : 'No request completed in this run.'}
            </p>
          ) : (
            <ResponsiveContainer width="100%" height={150}>
              <BarChart data={bins} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
                <CartesianGrid stroke="var(--grid)" vertical={false} />
                <XAxis dataKey="label" tick={AXIS} interval="preserveStartEnd" />
                <YAxis allowDecimals={false} tick={AXIS} />
                <Tooltip
                  {...TIP}
                  cursor={BAR_CURSOR}
                  labelFormatter={(_, p) => binRange(p[0]?.payload as Bin | undefined)}
                />
                <Bar dataKey="count" name="requests" fill="var(--c-text)" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          )}
        </figure>
      ))}
      {wers.length > 0 && (
        <figure className="chart small" data-testid="wer-histogram">
          <figcaption>WER per utterance (Seed-TTS gate)</figcaption>
          <ResponsiveContainer width="100%" height={150}>
            <BarChart data={wers} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
              <CartesianGrid stroke="var(--grid)" vertical={false} />
              <XAxis dataKey="label" tick={AXIS} interval="preserveStartEnd" />
              <YAxis allowDecimals={false} tick={AXIS} />
              <Tooltip {...TIP} />
              <Bar dataKey="count" name="utterances" fill="var(--c-completed)" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </figure>
      )}
    </section>
  );
});
