/**
 * The per-request record the benchmark client fills while it reads a stream.
 * Field meanings follow vLLM-Omni's `MixRequestFuncOutput`
 * (docs/design.md#per-request-metrics): times are seconds on a monotonic clock (like `time.perf_counter`), and
 * `ttft`/`itl`/`latency`/`audio*` are relative to `startTime`.
 */
import { StallscopeError, type ErrorCode } from '../../../shared/errors.ts';
import type { MetricInput } from '../../../shared/metrics/input.ts';
import type { RealtimeTurnFields } from '../../../shared/metrics/realtime.ts';
import type { RequestStageSnapshot } from '../../../shared/vllmResult/requestStageMetrics.ts';
import { KEPT_ERROR_CHARS, keptText } from './keptText.ts';

/**
 * What an ended request keeps (the engine's request table stores these
 * fields, server/engine/records/requestTable.ts): the metric fields (ttft,
 * itl, latency, audio*, promptLen, startTime, …) are `MetricInput`'s,
 * documented there; this adds what only the client tracks.
 */
export interface EndedRecord extends MetricInput, RealtimeTurnFields {
  /** `""` on success; the in-stream error message, the HTTP reason phrase or a clear client-side message otherwise. */
  error: string;
  errorCode: ErrorCode | null;
  /** A non-200 answer's HTTP status and its body's first line (bounded): beside `error`, which stays vLLM's phrase. */
  httpStatus?: number;
  bodyLine?: string | null;
  /** True once any audio event arrived. */
  hasAudio: boolean;
  /** HTTP attempts made for this request (retries of transport errors count). */
  attempts: number;
  /** The stage fields the result's `request_stage_metrics` keeps (shared/vllmResult/requestStageMetrics.ts); absent: none seen. */
  stageSnapshot?: RequestStageSnapshot;
}

/** The record the stream parser fills while a request runs. */
export interface RequestRecord extends EndedRecord {
  /** Filled in place while the stream is read. */
  itl: number[];
  /** Per-request warnings (format drift, a tolerated protocol deviation), each at most once (events by the end). */
  warnings: string[];
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
    warnings: [],
    hasAudio: false,
    // The runner sets the attempt number before each send; a record that was unsent keeps 0.
    attempts: 0,
  };
}

/**
 * Mark a record failed with a stable code. `detail` is used verbatim as the
 * error string when `verbatim` is set (HTTP reason phrases, in-stream error
 * messages: what vLLM would store); otherwise it is prefixed with the code's
 * table message so every client-side failure reads the same way. Either is
 * kept up to KEPT_ERROR_CHARS (a server's message can be megabytes).
 */
export function markFailed(record: RequestRecord, code: ErrorCode, detail: string, verbatim = false): void {
  record.success = false;
  record.errorCode = code;
  record.error = keptText(verbatim ? detail : new StallscopeError(code, detail).message, KEPT_ERROR_CHARS);
}

/**
 * The record of an unsent request (fail-fast cancelled it while
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
