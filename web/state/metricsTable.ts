/**
 * The metrics table in `vllm bench serve`'s printed layout: a head block of
 * scalars, then one section per latency metric with mean, median and the
 * chosen percentiles, built from the flat result keys (`mean_ttft_ms`, ...).
 * Only keys present in the result are shown: no fake zeros.
 */
import {
  METRIC_SUFFIX,
  METRIC_TITLES,
  PERCENTILE_METRICS,
  RESULT_LABELS,
  SEED_TTS_LABELS,
  SEED_TTS_TITLE,
  type LabelledKey,
} from '../../shared/metrics/index.ts';
import { stopCancelLabel, stopCancelTitle, stoppedByRule, type StopLike } from '../../shared/requests/stopLabel.ts';

export type Metrics = Record<string, number | string | null | undefined>;

export interface MetricRow {
  key: string;
  label: string;
  /** Decimals shown (default 2); WER needs 4 to be read against a bound such as 0.0156. */
  digits?: number;
  /** Hover text: what the label means where the key alone would mislead (a stop that was not a timeout). */
  title?: string;
}
export interface MetricSection {
  title: string;
  rows: MetricRow[];
}

/** The head block, in vLLM's order; labels are the shared ones (as the CLI prints them). */
const HEAD: LabelledKey[] = [
  'completed',
  'failed',
  'timed_out_requests',
  'cancelled_after_timeout_requests',
  'cancelled_requests',
  'not_dispatched_requests',
  'cleanup_forced_sockets',
  'max_concurrency',
  'request_rate',
  'duration',
  'total_input_tokens',
  'total_output_tokens',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'max_output_tokens_per_s',
  'max_concurrent_requests',
  'max_concurrent_requests_exact',
  'total_token_throughput',
  'total_audio_duration_s',
  'audio_throughput',
];

/** One section per percentile metric: vLLM's title, key suffix and unit. */
export const METRIC_SECTIONS: { metric: string; suffix: string; title: string; short: string; unit: string }[] =
  PERCENTILE_METRICS.map((metric) => {
    const suffix = METRIC_SUFFIX[metric];
    return { metric, suffix, title: METRIC_TITLES[metric], short: metric.toUpperCase(), unit: suffix.slice(1) };
  });

const present = (m: Metrics, k: string) => m[k] !== undefined && m[k] !== null && m[k] !== '';

const upFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The head row of the requests a stop cancelled: the key stays `cancelled_after_timeout_requests` (vLLM's), the label
 * names the rule that stopped the run(s), as the counters do (shared/requests/stopLabel.ts). Runs stopped by different
 * rules share one row: its label then says only that a stop cancelled them, each rule in its hover text.
 */
function cancelledRow(results: readonly Metrics[], stops: readonly StopLike[] | undefined): MetricRow {
  const key = 'cancelled_after_timeout_requests';
  if (!stops || stops.length === 0) return { key, label: RESULT_LABELS[key] };
  // A run whose stop cancelled nothing (a passed run beside a stopped one in Compare) does not blur the label.
  const cancelling = stops.filter((_, i) => Number(results[i]?.[key] ?? 0) > 0);
  const named = cancelling.length > 0 ? cancelling : stops;
  // Capitalised as the table's other labels are (vLLM's "Successful requests").
  const labels = [...new Set(named.map((s) => (stoppedByRule(s) ? upFirst(stopCancelLabel(s)) : RESULT_LABELS[key])))];
  const titles = [...new Set(named.map(stopCancelTitle))].join('; ');
  return { key, label: labels.length === 1 ? labels[0] : 'Cancelled when the run stopped', title: titles };
}

/**
 * Sections of rows whose keys at least one of the given results has; `stops` (one per result, the stored `stopped_by`)
 * names what cancelled the requests a stop ended.
 */
export function metricSections(results: readonly Metrics[], stops?: readonly StopLike[]): MetricSection[] {
  const any = (k: string) => results.some((m) => present(m, k));
  const out: MetricSection[] = [];
  const head = HEAD.filter((k) => any(k)).map((key): MetricRow =>
    key === 'cancelled_after_timeout_requests' ? cancelledRow(results, stops) : { key, label: RESULT_LABELS[key] },
  );
  if (head.length) out.push({ title: 'Serving Benchmark Result', rows: head });
  // The Seed-TTS gate (`--seed-tts-wer-eval`); WER with 4 decimals, as vLLM-Omni prints it.
  const accuracy = Object.entries(SEED_TTS_LABELS)
    .filter(([k]) => results.some((m) => m[k] !== undefined))
    .map(([key, label]) => ({ key, label, digits: key.includes('error') ? 4 : 2 }));
  if (accuracy.length) out.push({ title: SEED_TTS_TITLE, rows: accuracy });
  for (const sec of METRIC_SECTIONS) {
    const stats = new Map<string, number>(); // stat name → sort order
    for (const m of results) {
      for (const k of Object.keys(m)) {
        const match = /^(mean|median|p(\d+(?:\.\d+)?))_(.+)$/.exec(k);
        if (!match || match[3] !== sec.metric + sec.suffix || !present(m, k)) continue;
        stats.set(match[1], match[1] === 'mean' ? -2 : match[1] === 'median' ? -1 : Number(match[2]));
      }
    }
    if (stats.size === 0) continue;
    const rows = [...stats.entries()]
      .sort((a, b) => a[1] - b[1])
      .map(([stat]) => ({
        key: `${stat}_${sec.metric}${sec.suffix}`,
        label: `${stat === 'mean' ? 'Mean' : stat === 'median' ? 'Median' : stat.toUpperCase()} ${sec.short}${sec.unit ? ` (${sec.unit})` : ''}`,
      }));
    out.push({ title: sec.title, rows });
  }
  return out;
}

/** Numeric value of a result key, or null (strings such as "inf" stay null). */
export function metricNumber(m: Metrics, key: string): number | null {
  const v = m[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Change of `value` against `base`: absolute and relative (null when not comparable). */
export function delta(base: number | null, value: number | null): { abs: number; rel: number | null } | null {
  if (base === null || value === null) return null;
  return { abs: value - base, rel: base === 0 ? null : (value - base) / Math.abs(base) };
}

/** Flatten a nested config into dotted keys, for side-by-side comparison. */
export function flatten(v: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0 && prefix) out[prefix] = '{}';
    for (const [k, x] of entries) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out[prefix] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** Rows of a config comparison: every key any config has, with whether the values differ. */
export function configDiff(
  configs: readonly unknown[],
): { key: string; values: (string | undefined)[]; differs: boolean }[] {
  const flats = configs.map((c) => flatten(c));
  const keys = [...new Set(flats.flatMap((f) => Object.keys(f)))].sort();
  return keys.map((key) => {
    const values = flats.map((f) => f[key]);
    return { key, values, differs: values.some((x) => x !== values[0]) };
  });
}
