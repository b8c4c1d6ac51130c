/**
 * What the metric math needs from one request record. The engine's
 * RequestRecord (server/engine/records/record.ts) extends it, so records are
 * passed as they are.
 */
export interface MetricInput {
  success: boolean;
  /** Seconds from `startTime` to the first text event that carried at least one token (0 if none). */
  ttft: number;
  /** Per-token inter-token latencies in seconds (k-token rule, docs/design.md#per-request-metrics). */
  itl: ReadonlyNumbers;
  /** e2el: seconds from `startTime` to the last non-`[DONE]` event; 0 until the stream ended cleanly. */
  latency: number;
  outputTokens: number;
  /** Client estimate at first; replaced by the server's `usage.prompt_tokens` when it arrives. */
  promptLen: number;
  generatedText: string;
  /** Seconds from `startTime` to the first audio event (0 when the request had no audio). */
  audioTtfp: number;
  /** Seconds of decoded PCM audio (frames / WAV rate). */
  audioDuration: number;
  audioFrames: number;
  /** (last audio event − start) / audioDuration; 0 without audio. */
  audioRtf: number;
  /** ttft + Σitl once the stream ended (or the time of the last token event while it runs). */
  textLatency: number;
  /**
   * The streaming-audio continuity check (openai-audio-speech only; absent = vLLM-Omni's defaults 0,
   * true, 0): the worst underrun in seconds, whether it stayed within the threshold, and how many
   * chunks arrived late (docs/design.md#speech-metrics).
   */
  audioUnderrunS?: number;
  audioContinuityOk?: boolean;
  audioUnderrunEventCount?: number;
  /** Monotonic seconds just before the request was sent (reset per retry attempt). */
  startTime: number;
  /**
   * Monotonic seconds when the request ended, whatever its outcome (absent
   * for an unsent request, and in imported vLLM records). Lets the exact
   * concurrency count requests that timed out or were cancelled in flight.
   */
  endTime?: number;
}

/** A list of numbers read in order: an array, or a typed array (the engine's packed ITLs). */
export type ReadonlyNumbers = ArrayLike<number> & Iterable<number>;

/**
 * A run's records (or one of their fields) in dataset order, read one at a
 * time: an array, or the engine's request table, whose `at` builds each
 * record from its columns (docs/design.md#request-table).
 */
export interface RecordList<T> extends Iterable<T> {
  readonly length: number;
  at(index: number): T | undefined;
}

/** Metrics that can get mean/median/percentile keys, in the order vLLM-Omni writes them. */
export const PERCENTILE_METRICS = [
  'ttft',
  'tpot',
  'itl',
  'e2el',
  'audio_ttfp',
  'audio_rtf',
  'audio_duration',
  // The continuity check's worst underrun per request (`*_audio_underrun_s`); 0 for backends without it.
  'audio_underrun',
] as const;
export type PercentileMetric = (typeof PERCENTILE_METRICS)[number];

/** Key suffix of each metric's statistics (docs/design.md#statistics). */
export const METRIC_SUFFIX: Record<PercentileMetric, string> = {
  ttft: '_ms',
  tpot: '_ms',
  itl: '_ms',
  e2el: '_ms',
  audio_ttfp: '_ms',
  audio_rtf: '',
  audio_duration: '_s',
  audio_underrun: '_s',
};

/** Metrics whose `num_{metric}_samples` count is always written. */
export const SAMPLE_COUNT_METRICS = ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf'] as const;

/** Metrics a goodput SLO may name (vLLM's check_goodput_args: ttft, tpot, e2el). */
export const GOODPUT_METRICS = ['ttft', 'tpot', 'e2el'] as const;
export type GoodputMetric = (typeof GOODPUT_METRICS)[number];

export interface MetricOptions {
  /** Benchmark duration in seconds (first dispatch to the last request's end, failures included). */
  durationS: number;
  /** Which metrics get mean/median/p keys, e.g. `['ttft','tpot','itl','e2el']`. */
  percentileMetrics: readonly string[];
  /** Percentiles to write, e.g. `[99]` or `[50, 90, 99]`. */
  metricPercentiles: readonly number[];
  /** `--goodput` SLOs in ms; when given (even empty of keys it is not), `request_goodput` is computed. */
  goodput?: Partial<Record<GoodputMetric, number>>;
}
