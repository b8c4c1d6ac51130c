/**
 * Derived views of a run model for the charts and tables, pure. Each takes
 * plain data and returns plain data; components memoize on the inputs.
 */
import type { RequestView } from '../../shared/runView/runModel.ts';
import { count } from '../../shared/format.ts';

export interface SeriesPoint {
  /** Bucket end, seconds on the run clock. */
  s: number;
  inFlight: number;
  completed: number;
  failed: number;
  timedOut: number;
  cancelled: number;
}

/**
 * Requests active in each time bucket (the most in flight at any one instant
 * within it: the exact sweep, as `max_concurrent_requests_exact`), and
 * outcomes per bucket, over [0, end] ms.
 */
export function outcomeSeries(rows: readonly RequestView[], endMs: number, buckets = 120): SeriesPoint[] {
  const end = Math.max(endMs, 1);
  const n = Math.max(1, Math.min(buckets, Math.ceil(end / 10)));
  const width = end / n;
  const pts: SeriesPoint[] = Array.from({ length: n }, (_, i) => ({
    // Rounded to the µs so a bucket end equals the same tick value computed elsewhere (timeAxis).
    s: Math.round((i + 1) * width * 1000) / 1e6,
    inFlight: 0,
    completed: 0,
    failed: 0,
    timedOut: 0,
    cancelled: 0,
  }));
  const bucketOf = (t: number) => Math.min(n - 1, Math.max(0, Math.floor(t / width)));
  for (const r of rows) {
    if (r.endT === null) continue;
    const p = pts[bucketOf(r.endT)];
    if (r.status === 'completed') p.completed++;
    else if (r.status === 'failed') p.failed++;
    else if (r.status === 'timed_out') p.timedOut++;
    else if (r.status === 'cancelled_after_timeout' || r.status === 'cancelled' || r.status === 'not_dispatched')
      p.cancelled++;
  }
  const active = activePerBucket(rows, n, width);
  for (let i = 0; i < n; i++) pts[i].inFlight = active[i];
  return pts;
}

/** One outcome of the Completions chart, drawn on its own scale. */
export interface OutcomePanel {
  key: 'completed' | 'failed' | 'timedOut' | 'cancelled';
  label: string;
  /** Requests that ended so, over the run. */
  total: number;
  /** The most in one bucket: the panel's own y-axis top. */
  max: number;
}

const OUTCOME_KINDS = [
  { key: 'completed', label: 'completed' },
  { key: 'failed', label: 'errored' },
  { key: 'timedOut', label: 'timed out' },
  { key: 'cancelled', label: 'cancelled' },
] as const;

/**
 * The outcomes the run has, each to be drawn on its own y scale: one shared
 * linear scale hides 5 timed-out requests beside 1,083 cancelled ones, and the
 * timeout is the story. Outcomes with no request are left out.
 */
export function outcomePanels(series: readonly SeriesPoint[]): OutcomePanel[] {
  const out: OutcomePanel[] = [];
  for (const { key, label } of OUTCOME_KINDS) {
    let total = 0;
    let max = 0;
    for (const p of series) {
      total += p[key];
      if (p[key] > max) max = p[key];
    }
    if (total > 0) out.push({ key, label, total, max });
  }
  return out;
}

/**
 * The exact sweep per bucket: the most requests holding a slot at one instant
 * within each bucket, intervals [sent, end) so a request ending as another
 * starts does not overlap it (a concurrency-4 run never shows 5). Counting a
 * request in every bucket it touches instead (vLLM's one-second buckets)
 * adds up requests that only followed each other.
 */
export function activePerBucket(rows: readonly RequestView[], n: number, width: number): number[] {
  const ev: [number, number][] = [];
  for (const r of rows) {
    if (r.sentT === null) continue;
    ev.push([r.sentT, 1]);
    if (r.endT !== null) ev.push([r.endT, -1]);
  }
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = new Array<number>(n).fill(0);
  let active = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const bucketEnd = (i + 1) * width;
    let peak = active;
    while (k < ev.length && (ev[k][0] < bucketEnd || i === n - 1)) {
      active += ev[k][1];
      if (active > peak) peak = active;
      k++;
    }
    out[i] = peak;
  }
  return out;
}

/** The exact peak of requests in flight at one instant, from the rows (the live figure). */
export function exactPeak(rows: readonly RequestView[]): number {
  return Math.max(0, ...activePerBucket(rows, 1, 1));
}

export interface Bin {
  from: number;
  to: number;
  count: number;
  label: string;
}

/** The smallest 1, 2 or 5 × 10^k at least `raw` (a step people read as round). */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= raw * (1 - 1e-9)) ?? 10 * mag;
}

/** `v` on a grid of `step`, without binary noise (0.30000000000000004 → 0.3). */
const onGrid = (v: number, step: number) => {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return Number(v.toFixed(Math.min(12, decimals + 1)));
};

/**
 * Histogram of `values` in about `bins` bins of a round width, edges on
 * multiples of it (so the axis reads 120, 140, 160, not 5.83, 7.96, 12.22).
 * Each bin's label is its lower edge.
 */
export function histogram(values: readonly number[], bins = 20): Bin[] {
  const xs = values.filter((v) => Number.isFinite(v));
  if (xs.length === 0) return [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of xs) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi === lo) return [{ from: lo, to: hi, count: xs.length, label: fmtNum(lo) }];
  const w = niceStep((hi - lo) / bins);
  const start = onGrid(Math.floor(lo / w) * w, w);
  const n = Math.max(1, Math.ceil((hi - start) / w - 1e-9));
  const out: Bin[] = Array.from({ length: n }, (_, i) => {
    const from = onGrid(start + i * w, w);
    return { from, to: onGrid(start + (i + 1) * w, w), count: 0, label: count(from) };
  });
  for (const v of xs) out[Math.min(n - 1, Math.max(0, Math.floor((v - start) / w)))].count++;
  return out;
}

export interface TimeAxis {
  /** Bucket width (ms), a round step. */
  stepMs: number;
  buckets: number;
  /** buckets × stepMs: at least the run's end. */
  endMs: number;
  /** Tick positions (s) at round steps, each a bucket end, for a category axis of `outcomeSeries` points. */
  ticksS: number[];
}

/** Buckets of a round width over [0, endMs] and about `tickCount` ticks at round steps on them. */
export function timeAxis(endMs: number, maxBuckets = 60, tickCount = 6): TimeAxis {
  const stepMs = niceStep(Math.max(endMs, 1) / maxBuckets);
  const buckets = Math.max(1, Math.ceil(endMs / stepMs - 1e-9));
  const end = buckets * stepMs;
  const tickMs = Math.max(stepMs, niceStep(end / tickCount));
  const ticksS: number[] = [];
  for (let k = 1; k * tickMs <= end + 1e-9; k++) ticksS.push(onGrid((k * tickMs) / 1000, stepMs / 1000));
  return { stepMs, buckets, endMs: end, ticksS };
}

/** Per-request latencies in ms of completed requests, from their outcomes. */
export function latenciesMs(rows: readonly RequestView[], key: 'ttftS' | 'e2elS' | 'audioTtfpS'): number[] {
  const out: number[] = [];
  for (const r of rows)
    if (r.status === 'completed' && r.outcome && r.outcome[key] > 0) out.push(r.outcome[key] * 1000);
  return out;
}

export function fmtNum(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (Number.isInteger(v)) return count(v);
  return Math.abs(v) >= 1000 ? v.toLocaleString('en-US', { maximumFractionDigits: 0 }) : v.toFixed(digits);
}

/** Number of stall reports per phase. */
export function stallsByPhase(phases: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of phases) out[p] = (out[p] ?? 0) + 1;
  return out;
}
