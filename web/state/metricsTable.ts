/**
 * The metrics table in `vllm bench serve`'s printed layout: a head block of
 * scalars, then one section per latency metric with mean, median and the
 * chosen percentiles, built from the flat result keys (`mean_ttft_ms`, ...).
 * Only keys present in the result are shown: no fake zeros.
 */
export type Metrics = Record<string, number | string | null | undefined>;

export interface MetricRow {
  key: string;
  label: string;
}
export interface MetricSection {
  title: string;
  rows: MetricRow[];
}

const HEAD: [string, string][] = [
  ['completed', 'Successful requests'],
  ['failed', 'Failed requests'],
  ['timed_out_requests', 'Timed-out requests'],
  ['cancelled_after_timeout_requests', 'Cancelled after timeout'],
  ['cancelled_requests', 'Cancelled (interrupt)'],
  ['not_dispatched_requests', 'Not dispatched'],
  ['max_concurrency', 'Maximum request concurrency'],
  ['request_rate', 'Request rate (req/s)'],
  ['duration', 'Benchmark duration (s)'],
  ['total_input_tokens', 'Total input tokens'],
  ['total_output_tokens', 'Total generated tokens'],
  ['request_throughput', 'Request throughput (req/s)'],
  ['request_goodput', 'Request goodput (req/s)'],
  ['output_throughput', 'Output token throughput (tok/s)'],
  ['max_output_tokens_per_s', 'Peak output token throughput (tok/s)'],
  ['max_concurrent_requests', 'Peak concurrent requests'],
  ['max_concurrent_requests_exact', 'Peak concurrent requests (exact)'],
  ['total_token_throughput', 'Total token throughput (tok/s)'],
  ['total_audio_duration_s', 'Total audio duration (s)'],
  ['audio_throughput', 'Audio throughput (audio s/s)'],
];

export const METRIC_SECTIONS: { metric: string; suffix: string; title: string; short: string; unit: string }[] = [
  { metric: 'ttft', suffix: '_ms', title: 'Time to First Token', short: 'TTFT', unit: 'ms' },
  { metric: 'tpot', suffix: '_ms', title: 'Time per Output Token (excl. 1st token)', short: 'TPOT', unit: 'ms' },
  { metric: 'itl', suffix: '_ms', title: 'Inter-token Latency', short: 'ITL', unit: 'ms' },
  { metric: 'e2el', suffix: '_ms', title: 'End-to-end Latency', short: 'E2EL', unit: 'ms' },
  { metric: 'audio_ttfp', suffix: '_ms', title: 'Time to First Audio Packet', short: 'AUDIO_TTFP', unit: 'ms' },
  { metric: 'audio_rtf', suffix: '', title: 'Audio Real-Time Factor', short: 'AUDIO_RTF', unit: '' },
  { metric: 'audio_duration', suffix: '_s', title: 'Audio Duration', short: 'AUDIO_DURATION', unit: 's' },
];

const present = (m: Metrics, k: string) => m[k] !== undefined && m[k] !== null && m[k] !== '';

/** Sections of rows whose keys at least one of the given results has. */
export function metricSections(results: readonly Metrics[]): MetricSection[] {
  const any = (k: string) => results.some((m) => present(m, k));
  const out: MetricSection[] = [];
  const head = HEAD.filter(([k]) => any(k)).map(([key, label]) => ({ key, label }));
  if (head.length) out.push({ title: 'Serving Benchmark Result', rows: head });
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
