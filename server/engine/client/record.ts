/**
 * The per-request record the benchmark client fills while it reads a stream.
 * Field meanings follow vLLM-Omni's `MixRequestFuncOutput`
 * (docs/design.md#per-request-metrics): times are seconds on a monotonic clock (like `time.perf_counter`), and
 * `ttft`/`itl`/`latency`/`audio*` are relative to `startTime`.
 */
import { StallscopeError, type ErrorCode } from '../../../shared/errors.ts';
import type { MetricInput } from '../../../shared/metrics/input.ts';

/**
 * The metric fields (ttft, itl, latency, audio*, promptLen, startTime, …) are
 * `MetricInput`'s, documented there; this adds what only the client tracks.
 */
export interface RequestRecord extends MetricInput {
  /** Filled in place while the stream is read. */
  itl: number[];
  /** `""` on success; the in-stream error message, the HTTP reason phrase or a clear client-side message otherwise. */
  error: string;
  errorCode: ErrorCode | null;
  /** Stage metrics from the events' `metrics` objects, keyed by stage id. */
  stageMetrics: Record<string, unknown>;
  /** Per-request warnings (format drift, a tolerated protocol deviation), each at most once. */
  warnings: string[];
  /** True once any audio event arrived. */
  hasAudio: boolean;
  /** HTTP attempts made for this request (retries of transport errors count). */
  attempts: number;
}

export function newRecord(promptLen: number, startTime: number): RequestRecord {
  return {
    success: false,
    error: '',
    errorCode: null,
    ttft: 0,
    itl: [],
    latency: 0,
    outputTokens: 0,
    promptLen,
    generatedText: '',
    audioTtfp: 0,
    audioDuration: 0,
    audioFrames: 0,
    audioRtf: 0,
    textLatency: 0,
    startTime,
    stageMetrics: {},
    warnings: [],
    hasAudio: false,
    // The runner sets the attempt number before each send; a record that was never sent keeps 0.
    attempts: 0,
  };
}

/**
 * Mark a record failed with a stable code. `detail` is used verbatim as the
 * error string when `verbatim` is set (HTTP reason phrases, in-stream error
 * messages: what vLLM would store); otherwise it is prefixed with the code's
 * table message so every client-side failure reads the same way.
 */
export function markFailed(record: RequestRecord, code: ErrorCode, detail: string, verbatim = false): void {
  record.success = false;
  record.errorCode = code;
  record.error = verbatim ? detail : new StallscopeError(code, detail).message;
}

/**
 * The record of a request that was never sent (fail-fast cancelled it while
 * queued, or the run was interrupted first): the client's prompt length,
 * start time 0, and an error saying why. Used as the dataset-order
 * placeholder in the result arrays.
 */
export function placeholderRecord(promptLen: number, code: ErrorCode, detail: string, verbatim = false): RequestRecord {
  const record = newRecord(promptLen, 0);
  record.attempts = 0;
  markFailed(record, code, detail, verbatim);
  return record;
}

const NO_ITL: number[] = Object.freeze([]) as unknown as number[];
const NO_STAGE_METRICS: Record<string, unknown> = Object.freeze({});
const NO_WARNINGS: string[] = Object.freeze([]) as unknown as string[];

/**
 * Shrinks an ended request's record in place (same object: the Seed-TTS audio
 * spool is keyed by it) to what the metrics and the result read, so a run
 * holds a few hundred bytes per finished request, however long the run: the ITL array
 * trimmed to its length (a pushed array keeps spare capacity), and the stage
 * metrics and warnings, read only while the stream runs (warnings are events
 * by then), dropped for shared empty ones. Never call it on a record still
 * being filled.
 */
export function compactRecord(record: RequestRecord): void {
  record.itl = record.itl.length === 0 ? NO_ITL : record.itl.slice();
  record.stageMetrics = NO_STAGE_METRICS;
  record.warnings = NO_WARNINGS;
}
