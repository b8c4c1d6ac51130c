/** The run over time: active requests (with the two peak figures) and the outcomes per bucket. */
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
import type { SeriesPoint, TimeAxis } from '../state/selectors.ts';
import { AXIS, BAR_CURSOR, fmtS, fmtTipS, LINE_CURSOR, MARGIN, TIP } from './chartStyle.ts';

export function ConcurrencyChart({
  series,
  axis,
  exact,
  vllm,
}: {
  series: SeriesPoint[];
  axis: TimeAxis;
  /** The exact peak of in-flight requests at one instant. */
  exact: number;
  /** The result's max_concurrent_requests (vLLM's per-second count), when there is one. */
  vllm: number | null;
}) {
  return (
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
          vLLM counts a request in every one-second bucket it is active in, so requests that follow each other within a
          second add up, and it counts completed requests only; the chart plots the exact count.
        </div>
      </figcaption>
      <ResponsiveContainer width="100%" height={180}>
        <AreaChart data={series} margin={MARGIN}>
          <CartesianGrid stroke="var(--grid)" vertical={false} />
          <XAxis dataKey="s" tick={AXIS} tickFormatter={fmtS} ticks={axis.ticksS} interval={0} />
          <YAxis allowDecimals={false} tick={AXIS} />
          <Tooltip {...TIP} cursor={LINE_CURSOR} labelFormatter={fmtTipS} />
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
  );
}

export function OutcomesChart({ series, axis }: { series: SeriesPoint[]; axis: TimeAxis }) {
  return (
    <figure className="chart">
      <figcaption>Completions, failures, timeouts, cancellations</figcaption>
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={series} margin={MARGIN}>
          <CartesianGrid stroke="var(--grid)" vertical={false} />
          <XAxis dataKey="s" tick={AXIS} tickFormatter={fmtS} ticks={axis.ticksS} interval={0} />
          <YAxis allowDecimals={false} tick={AXIS} />
          <Tooltip {...TIP} cursor={BAR_CURSOR} labelFormatter={fmtTipS} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          <Bar dataKey="completed" stackId="o" fill="var(--c-completed)" isAnimationActive={false} />
          <Bar dataKey="failed" stackId="o" fill="var(--c-failed)" isAnimationActive={false} />
          <Bar dataKey="timedOut" name="timed out" stackId="o" fill="var(--c-timed_out)" isAnimationActive={false} />
          <Bar dataKey="cancelled" stackId="o" fill="var(--c-cancelled)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
