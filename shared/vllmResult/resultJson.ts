/**
 * The saved result: vLLM's result dict, in vLLM's key order, plus
 * stallscope's keys (docs/design.md#result-json). Anything that reads a vLLM result
 * file reads ours; the extra keys come last. A file format two programs write
 * (the engine its result file, the dashboard an export rebuilt from a stored
 * run), so it lives here, pure, beside the metrics it holds.
 *
 * Order: the header `main_async` writes (date … num_prompts, the `--metadata`
 * pairs, request_rate, burstiness, max_concurrency); then omni `benchmark()`'s
 * keys as the golden aggregate fixture records them, with the per-request
 * arrays (`--save-detailed` only) where vLLM puts them, between
 * `mean_denoise_step_latency_ms` and `max_output_tokens_per_s`; then the
 * sample counts and mean/median/p keys; any other metric key; then ours.
 */
import { outputLength } from '../metrics/index.ts';
import type { MetricInput, RecordList } from '../metrics/input.ts';
import type { StoppedBy } from '../config/stopRules.ts';
import type { RequestStageSnapshot } from './requestStageMetrics.ts';
import type { BreakerCause, ConnectionMode, InterruptCause, RequestEndStatus, RunCounts, Verdict } from '../types.ts';

/** One request's fields the result reads (the engine's RequestRecord has them all). */
export type ResultRecord = Pick<
  MetricInput,
  | 'success'
  | 'ttft'
  | 'itl'
  | 'outputTokens'
  | 'promptLen'
  | 'generatedText'
  | 'audioDuration'
  | 'audioFrames'
  | 'startTime'
  | 'latency'
  | 'audioTtfp'
  | 'audioRtf'
  | 'textLatency'
> & { error: string };

/** `--ramp-up-strategy` with its rates, as the result records them. */
interface ResultRampUp {
  strategy: 'linear' | 'exponential';
  startRps: number;
  endRps: number;
}

/** One whole-RPS step of a ramp-up run (`rps_change_events`). */
export interface RpsChangeEvent {
  rps: number;
  /** Local time as Python's `datetime.now().isoformat()` writes it. */
  timestamp: string;
}

/** `%Y%m%d-%H%M%S` in local time, as vLLM's `datetime.now().strftime` writes it. */
export function formatResultDate(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** What a result is built from. Records are in dataset order, one per request. */
export interface ResultJsonInput {
  /** `%Y%m%d-%H%M%S` (see formatResultDate) or a Date, formatted in local time as vLLM does. */
  date: string | Date;
  backend: string;
  /** vLLM writes the backend here too; defaults to `backend`. */
  endpointType?: string;
  /** `--label`; null when not given (vLLM writes null). */
  label: string | null;
  modelId: string;
  /** Defaults to `modelId`. */
  tokenizerId?: string;
  /** The `--num-prompts` argument (not the number actually sent). */
  numPrompts: number;
  /** `--metadata KEY=VALUE` pairs, in order; written between num_prompts and request_rate. */
  metadata?: readonly (readonly [string, string])[];
  /** Requests per second; Infinity is written as the string "inf". */
  requestRate: number;
  burstiness: number;
  maxConcurrency: number | null;
  /** With ramp-up: written after max_concurrency, as vLLM's main does. */
  rampUp?: ResultRampUp;
  /** With ramp-up: the whole-RPS steps, written after the per-request arrays and peaks. */
  rpsChangeEvents?: readonly RpsChangeEvent[];
  /** From `calculateMetrics`; non-finite values are left out, never written as NaN. */
  metrics: Record<string, number>;
  /** `--save-detailed`: include the per-request arrays. */
  detailed: boolean;
  /**
   * One record per request in dataset order. An unsent request
   * is a placeholder record (see `placeholderRecord`): its client prompt
   * length, start time 0, and its error string.
   */
  records: RecordList<ResultRecord>;
  /** End state per request, dataset order. */
  statuses: Iterable<RequestEndStatus>;
  counts: RunCounts;
  /**
   * The breaker: armed by any stop rule, tripped by any; `cause` the timeout
   * of a timeouts rule. With `stopOn` (the engine's runs) the rules and the
   * trip are written too (`stop_on`, `stopped_by`; docs/design.md#stop-rules).
   */
  failFast: {
    enabled: boolean;
    tripped: boolean;
    cause: BreakerCause | null;
    stopOn?: readonly string[];
    stoppedBy?: StoppedBy | null;
  };
  verdict: Verdict;
  verdictReasons: readonly string[];
  /** How the run's connections were opened and how it stopped (absent: a file rebuilt without them). */
  run?: { connectionMode: ConnectionMode; interruptCause: InterruptCause | null; cleanupForcedSockets: number };
  /** The Seed-TTS gate's seed_tts_* keys, written after the metrics as vLLM-Omni adds them to its result. */
  seedTts?: Record<string, unknown> | null;
  /** The backend's own keys (the speech backend's continuity rate and arrays), after the metrics and seed_tts_*. */
  backendKeys?: Record<string, unknown> | null;
  /** `request_stage_metrics` (requestStageMetrics.ts), after the sample counts; null or absent: not written. */
  requestStageMetrics?: readonly (RequestStageSnapshot | null)[] | null;
}

/** Keys of omni `benchmark()`'s result before the per-request arrays. */
const HEAD_METRICS = [
  'duration',
  'completed',
  'failed',
  'total_input_tokens',
  'total_output_tokens',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'total_audio_duration_s',
  'total_audio_frames',
  'audio_throughput',
  'total_images',
  'image_throughput',
  'average_pixels_per_image',
  'mean_denoise_step_latency_ms',
];
const TAIL_METRICS = ['max_output_tokens_per_s', 'max_concurrent_requests', 'max_concurrent_requests_exact', 'rtfx'];
const SAMPLE_COUNTS = [
  'num_ttft_samples',
  'num_tpot_samples',
  'num_itl_samples',
  'num_audio_ttfp_samples',
  'num_audio_rtf_samples',
];
const DUPLEX_KEYS: readonly string[] = ['duplex_request_metrics', 'duplex_session_metrics'];

export function buildResultJson(input: ResultJsonInput): Record<string, unknown> {
  const out: Record<string, unknown> = {
    date: typeof input.date === 'string' ? input.date : formatResultDate(input.date),
    endpoint_type: input.endpointType ?? input.backend,
    backend: input.backend,
    label: input.label,
    model_id: input.modelId,
    tokenizer_id: input.tokenizerId ?? input.modelId,
    num_prompts: input.numPrompts,
  };
  for (const [k, v] of input.metadata ?? []) out[k] = v;
  out.request_rate = Number.isFinite(input.requestRate) ? input.requestRate : 'inf';
  out.burstiness = input.burstiness;
  out.max_concurrency = input.maxConcurrency;
  if (input.rampUp) {
    out.ramp_up_strategy = input.rampUp.strategy;
    out.ramp_up_start_rps = input.rampUp.startRps;
    out.ramp_up_end_rps = input.rampUp.endRps;
  }

  const metrics = input.metrics;
  const placed = new Set<string>();
  const put = (key: string): void => {
    placed.add(key);
    const v = metrics[key];
    if (typeof v === 'number' && Number.isFinite(v)) out[key] = v;
  };
  for (const key of HEAD_METRICS) {
    if (key === 'request_goodput') out.request_goodput = null; // vLLM's value without --goodput; put() replaces it when computed
    put(key);
  }
  if (input.detailed) Object.assign(out, detailedArrays(input.records));
  for (const key of TAIL_METRICS) put(key);
  // Then, as upstream's result dict: the sample counts, the per-request stage fields, then the realtime duplex_* keys.
  for (const key of SAMPLE_COUNTS) put(key);
  if (input.requestStageMetrics) out.request_stage_metrics = input.requestStageMetrics;
  const backendKeys = input.backendKeys ?? {};
  for (const key of DUPLEX_KEYS) if (key in backendKeys) out[key] = backendKeys[key];
  if (input.rpsChangeEvents?.length) out.rps_change_events = [...input.rpsChangeEvents];
  for (const key of Object.keys(metrics)) if (!placed.has(key)) put(key);
  for (const [k, v] of Object.entries(input.seedTts ?? {})) out[k] = v;
  for (const [k, v] of Object.entries(backendKeys)) if (!DUPLEX_KEYS.includes(k)) out[k] = v;

  const c = input.counts;
  out.timed_out_requests = c.timedOut;
  out.cancelled_after_timeout_requests = c.cancelledAfterTimeout;
  out.not_dispatched_requests = c.unsent;
  if (input.run) {
    // Interrupt cancellations, queued and in flight (docs/design.md#interrupts).
    out.cancelled_requests = c.cancelled;
    out.interrupt_cause = input.run.interruptCause;
    out.connection_mode = input.run.connectionMode;
    out.cleanup_forced_sockets = input.run.cleanupForcedSockets;
  }
  out.fail_fast_enabled = input.failFast.enabled;
  out.fail_fast_tripped = input.failFast.tripped;
  const cause = input.failFast.cause;
  out.fail_fast_cause = cause
    ? {
        request_index: cause.requestIndex,
        request_id: cause.requestId,
        kind: cause.kind,
        elapsed_s: cause.elapsedS,
        last_phase: cause.lastPhase ?? null,
      }
    : null;
  if (input.failFast.stopOn) {
    out.stop_on = [...input.failFast.stopOn];
    out.stopped_by = stoppedByJson(input.failFast.stoppedBy ?? null);
  }
  out.verdict = input.verdict;
  out.verdict_reasons = [...input.verdictReasons];
  out.statuses = [...input.statuses];
  return out;
}

/** vLLM's per-request arrays (`--save-detailed`), in dataset order, from one pass over the records. */
export function detailedArrays(records: Iterable<ResultRecord>): Record<(typeof DETAILED_ARRAYS)[number], unknown[]> {
  const a = Object.fromEntries(DETAILED_ARRAYS.map((k) => [k, [] as unknown[]])) as Record<
    (typeof DETAILED_ARRAYS)[number],
    unknown[]
  >;
  for (const r of records) {
    a.input_lens.push(r.promptLen);
    a.start_times.push(r.startTime);
    a.output_lens.push(outputLength(r));
    a.ttfts.push(r.ttft);
    a.itls.push(Array.from(r.itl));
    a.generated_texts.push(r.generatedText);
    a.errors.push(r.error);
  }
  return a;
}

/** The per-request arrays, in the order vLLM writes them. */
export const DETAILED_ARRAYS = [
  'input_lens',
  'start_times',
  'output_lens',
  'ttfts',
  'itls',
  'generated_texts',
  'errors',
] as const;

/** `stopped_by` as the result file writes it (snake_case keys). */
export function stoppedByJson(s: StoppedBy | null): Record<string, unknown> | null {
  if (!s) return null;
  return {
    rule: s.rule,
    kind: s.kind,
    at_s: s.atS,
    value: s.value,
    ...(s.over !== undefined ? { over: s.over } : {}),
    requests: s.requests.map((r) => ({ index: r.index, request_id: r.requestId })),
    omitted: s.omitted,
  };
}

/** `stopped_by` read back from a result file (null when absent or not of that shape). */
export function stoppedByFromJson(v: unknown): StoppedBy | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.rule !== 'string' || typeof o.kind !== 'string' || typeof o.at_s !== 'number') return null;
  if (typeof o.value !== 'number' || !Array.isArray(o.requests)) return null;
  const requests = (o.requests as Record<string, unknown>[])
    .filter((r) => typeof r === 'object' && r !== null && typeof r.index === 'number')
    .map((r) => ({ index: r.index as number, requestId: typeof r.request_id === 'string' ? r.request_id : '' }));
  return {
    kind: o.kind as StoppedBy['kind'],
    rule: o.rule,
    atS: o.at_s,
    value: o.value,
    ...(typeof o.over === 'number' ? { over: o.over } : {}),
    requests,
    omitted: typeof o.omitted === 'number' ? o.omitted : 0,
  };
}
