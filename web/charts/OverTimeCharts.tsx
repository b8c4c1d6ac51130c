/** The run over time: active requests (with the two peak figures) and the outcomes per bucket. */
import { Area, AreaChart, Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { count } from '../../shared/format.ts';
import { outcomePanels, type OutcomePanel, type SeriesPoint, type TimeAxis } from '../state/selectors.ts';
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

const PANEL_FILL: Record<OutcomePanel['key'], string> = {
  completed: 'var(--c-completed)',
  failed: 'var(--c-failed)',
  timedOut: 'var(--c-timed_out)',
  cancelled: 'var(--c-cancelled)',
};

/**
 * Outcomes per bucket, one strip per outcome on its own scale
 * (web/state/selectors.ts outcomePanels): a shared scale flattens 5 timeouts
 * under 1,083 cancellations. The strips share the time axis, drawn once below.
 */
export function OutcomesChart({ series, axis }: { series: SeriesPoint[]; axis: TimeAxis }) {
  const panels = outcomePanels(series);
  const height = panels.length > 0 ? Math.max(48, Math.floor(150 / panels.length)) : 0;
  return (
    <figure className="chart" data-testid="outcomes-chart">
      <figcaption>Completions, failures, timeouts, cancellations (each on its own scale)</figcaption>
      {panels.length === 0 && <p className="muted chart-empty">No request has ended yet.</p>}
      {panels.map((p, i) => (
        <div key={p.key} className="outcome-panel" data-testid={`outcome-${p.key}`} data-total={p.total}>
          <span className="outcome-label small">
            {p.label} <b>{count(p.total)}</b>
          </span>
          <ResponsiveContainer width="100%" height={height + (i === panels.length - 1 ? 20 : 0)}>
            <BarChart data={series} margin={MARGIN} syncId="outcomes">
              <XAxis
                dataKey="s"
                hide={i !== panels.length - 1}
                tick={AXIS}
                tickFormatter={fmtS}
                ticks={axis.ticksS}
                interval={0}
              />
              <YAxis allowDecimals={false} tick={AXIS} domain={[0, p.max]} ticks={[0, p.max]} tickFormatter={count} />
              <Tooltip {...TIP} cursor={BAR_CURSOR} labelFormatter={fmtTipS} formatter={(v) => count(Number(v))} />
              <Bar
                dataKey={p.key}
                name={p.label}
                fill={PANEL_FILL[p.key]}
                isAnimationActive={false}
                minPointSize={(v) => (Number(v) > 0 ? 2 : 0)}
              />
            </BarChart>
          </ResponsiveContainer>
        </div>
      ))}
    </figure>
  );
}
