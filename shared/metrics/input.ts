/**
 * What the metric math needs from one request record. Structurally a subset
 * of the engine's RequestRecord (server/bench/client/record.ts), so records
 * are passed as they are; shared/ cannot import server code.
 */
export interface MetricInput {
  success: boolean;
  /** Seconds from start to the first token event (0 if none). */
  ttft: number;
  /** Per-token inter-token latencies, seconds. */
  itl: readonly number[];
  /** e2el: seconds from start to the last non-[DONE] event. */
  latency: number;
  outputTokens: number;
  promptLen: number;
  generatedText: string;
  audioTtfp: number;
  audioDuration: number;
  audioFrames: number;
  audioRtf: number;
  textLatency: number;
  /** Monotonic seconds when the request was sent. */
  startTime: number;
}

/** Metrics that can get mean/median/percentile keys, in the order vLLM-Omni writes them. */
export const PERCENTILE_METRICS = ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf', 'audio_duration'] as const;
export type PercentileMetric = (typeof PERCENTILE_METRICS)[number];

/** Key suffix of each metric's statistics (DESIGN.md section 3). */
export const METRIC_SUFFIX: Record<PercentileMetric, string> = {
  ttft: '_ms',
  tpot: '_ms',
  itl: '_ms',
  e2el: '_ms',
  audio_ttfp: '_ms',
  audio_rtf: '',
  audio_duration: '_s',
};

/** Metrics whose `num_{metric}_samples` count is always written. */
export const SAMPLE_COUNT_METRICS = ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf'] as const;

export interface MetricOptions {
  /** Benchmark duration in seconds (first dispatch to the last request's end, failures included). */
  durationS: number;
  /** Which metrics get mean/median/p keys, e.g. `['ttft','tpot','itl','e2el']`. */
  percentileMetrics: readonly string[];
  /** Percentiles to write, e.g. `[99]` or `[50, 90, 99]`. */
  metricPercentiles: readonly number[];
}
