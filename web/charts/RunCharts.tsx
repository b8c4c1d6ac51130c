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
import type { RequestRow } from '../state/runModel.ts';
import { histogram, latenciesMs, outcomeSeries, timeAxis, type Bin } from '../state/selectors.ts';
import { werHistogram, werValues } from '../state/accuracy.ts';
import { useInView, useThrottled } from '../state/hooks.ts';

const AXIS = { stroke: 'var(--muted)', fontSize: 11 };
const TIP = { contentStyle: { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)' } };
// Recharts' default hover band is a light grey (#ccc) block, glaring on the dark panel: a tint of the text colour instead.
const BAR_CURSOR = { fill: 'var(--hover)', stroke: 'none' };
const LINE_CURSOR = { stroke: 'var(--muted)' };

export function RunCharts({ rows, endMs, live }: { rows: readonly RequestRow[]; endMs: number; live: boolean }) {
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
      <ChartsView rows={t.rows} endMs={t.endMs} live={live} />
    </div>
  );
}

const binRange = (b: Bin | undefined) =>
  b ? `${b.from.toLocaleString('en-US')}–${b.to.toLocaleString('en-US')} ms` : '';

const ChartsView = memo(function ChartsView({
  rows,
  endMs,
  live,
}: {
  rows: readonly RequestRow[];
  endMs: number;
  live: boolean;
}) {
  // Bucket the run into whole seconds of domain so a live chart does not jitter on every tick; buckets
  // and ticks at round steps (0.5 s, 1 s, 2 s…).
  const end = Math.max(1000, Math.ceil(endMs / 1000) * 1000);
  const axis = useMemo(() => timeAxis(end, Math.min(60, end / 100)), [end]);
  const fmtS = (s: number) => `${Number(s.toFixed(3))}s`;
  const series = useMemo(() => outcomeSeries(rows, axis.endMs, axis.buckets), [rows, axis]);
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
      <figure className="chart">
        <figcaption>Active requests over time</figcaption>
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
