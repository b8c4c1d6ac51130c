/**
 * Browser ↔ dashboard contract, and the engine's domain events.
 *
 * The engine emits `BenchEvent`s through a plain subscriber; the dashboard
 * stores them per run with a `seq` and streams them over the WebSocket as
 * `ServerMessage`s. Telemetry from a target enters the same per-run stream
 * wrapped as `telemetry` events, joined to requests by `x-request-id`.
 */
import type { TelemetryEvent } from './telemetry.ts';
import type { BreakerCause, RequestEndStatus, RunCounts, RunStatus, TimeoutKind, Verdict } from './types.ts';
import type { ServerStacksReport } from './stallReport.ts';

export const PROTOCOL_VERSION = 1;

interface EventBase {
  /** Milliseconds since the run's benchmark clock started (monotonic). */
  t: number;
}

/** The run's clock started (after ready check and warmups). */
export interface RunStarted extends EventBase {
  type: 'run.started';
  runId: string;
  /** Wall-clock ms (epoch) at t = 0. */
  startedAtMs: number;
  numRequests: number;
  maxConcurrency: number | null;
  requestRate: number | 'inf';
  failFast: boolean;
  model: string;
  baseUrl: string;
}

/** A request arrived (per the arrival schedule) and waits for a concurrency slot. */
export interface RequestQueued extends EventBase {
  type: 'request.queued';
  index: number;
  requestId: string;
}

/** A request was sent (attempt counts from 1; a retry sends again). */
export interface RequestSent extends EventBase {
  type: 'request.sent';
  index: number;
  requestId: string;
  attempt: number;
}

export interface RequestFirstToken extends EventBase {
  type: 'request.first_token';
  index: number;
  /** Seconds from the request's start. */
  ttftS: number;
}

export interface RequestFirstAudio extends EventBase {
  type: 'request.first_audio';
  index: number;
  audioTtfpS: number;
}

/** Progress of a streaming request (throttled by the emitter). */
export interface RequestProgress extends EventBase {
  type: 'request.progress';
  index: number;
  outputTokens: number;
  audioS: number;
}

/** Per-request metrics carried by the end events. */
export interface RequestOutcome {
  index: number;
  requestId: string;
  status: RequestEndStatus;
  /** Seconds (vLLM units). 0 when not measured. */
  ttftS: number;
  e2elS: number;
  audioTtfpS: number;
  audioDurationS: number;
  outputTokens: number;
  promptLen: number;
  attempts: number;
  error: string;
  /** Ms since run start when the request was sent (null if never sent). */
  sentT: number | null;
}

export interface RequestCompleted extends EventBase {
  type: 'request.completed';
  outcome: RequestOutcome;
}
export interface RequestFailed extends EventBase {
  type: 'request.failed';
  outcome: RequestOutcome;
}
export interface RequestTimedOut extends EventBase {
  type: 'request.timed_out';
  kind: TimeoutKind;
  outcome: RequestOutcome;
}
/** Aborted in flight by the breaker. */
export interface RequestCancelled extends EventBase {
  type: 'request.cancelled';
  outcome: RequestOutcome;
}
/** Never sent: cancelled from the queue by the breaker, or never arrived. */
export interface RequestNotDispatched extends EventBase {
  type: 'request.not_dispatched';
  outcome: RequestOutcome;
}

export interface BreakerTripped extends EventBase {
  type: 'breaker.tripped';
  cause: BreakerCause;
  /** Counts at trip time. */
  inFlight: number;
  queued: number;
}

/** Summary carried by `run.finished`; `metrics` holds the vLLM result keys. */
export interface RunSummary {
  verdict: Verdict;
  verdictReasons: string[];
  counts: RunCounts;
  durationS: number;
  failFastTripped: boolean;
  cause: BreakerCause | null;
  /** Flat vLLM-style result keys (mean_ttft_ms, completed, ...). */
  metrics: Record<string, number | string | null>;
  resultFile?: string | null;
}

export interface RunFinished extends EventBase {
  type: 'run.finished';
  summary: RunSummary;
}

/** A warning concerning the run or one request (e.g. dropped WAV chunk). */
export interface RunWarning extends EventBase {
  type: 'run.warning';
  index?: number;
  message: string;
}

/**
 * The Seed-TTS gate (`--seed-tts-wer-eval`) started transcribing the run's
 * answers, after the benchmark (docs/design.md §4a).
 */
export interface AccuracyStarted extends EventBase {
  type: 'accuracy.started';
  /** Utterances to account for (every request of the run). */
  total: number;
  asrModel: string;
  /** The run's `--threshold` expressions on seed_tts_* keys (the gate's bounds), as written. */
  bounds: string[];
}

/** One utterance's outcome: its transcript and WER, or why it was excluded. */
export interface AccuracyItem extends EventBase {
  type: 'accuracy.item';
  index: number;
  utteranceId: string;
  reference: string;
  transcript: string | null;
  wer: number | null;
  /** Why the utterance is excluded from the mean (vLLM-Omni's item error), or null. */
  error: string | null;
  detail?: string;
}

/**
 * The server's process tree as py-spy read it (`--capture-server-stacks`,
 * `--server-stall-after-s`): a stall report of source `py-spy`.
 */
export interface ServerStacksCaptured extends EventBase {
  type: 'server.stacks';
  report: ServerStacksReport;
}

/** The events the benchmark engine emits. */
export type BenchEvent =
  | RunStarted
  | RequestQueued
  | RequestSent
  | RequestFirstToken
  | RequestFirstAudio
  | RequestProgress
  | RequestCompleted
  | RequestFailed
  | RequestTimedOut
  | RequestCancelled
  | RequestNotDispatched
  | BreakerTripped
  | RunFinished
  | RunWarning
  | AccuracyStarted
  | AccuracyItem
  | ServerStacksCaptured;

export type BenchEventType = BenchEvent['type'];

/** Target telemetry placed into a run's stream (joined by request id). */
export interface TelemetryInRun extends EventBase {
  type: 'telemetry';
  event: TelemetryEvent;
}

/** Dashboard-level run lifecycle (status changes not produced by the engine). */
export interface RunStatusChanged extends EventBase {
  type: 'run.status';
  status: RunStatus;
  message?: string;
}

/** Everything that can appear in a run's numbered stream. */
export type RunEvent = BenchEvent | TelemetryInRun | RunStatusChanged;

/** One numbered event of a run. `seq` starts at 1 and has no gaps per run. */
export interface SeqEvent {
  seq: number;
  event: RunEvent;
}

/** Light state of a run, as the snapshot carries it. */
export interface RunState {
  runId: string;
  status: RunStatus;
  /** Last seq already applied in this state. */
  seq: number;
  startedAtMs: number | null;
  label: string | null;
  counts: RunCounts;
  inFlight: number;
  breaker: { tripped: boolean; cause: BreakerCause | null };
  verdict: Verdict | null;
}

/** Server → browser messages on /ws. */
export type ServerMessage =
  | { type: 'hello'; v: typeof PROTOCOL_VERSION }
  | { type: 'snapshot'; runs: RunState[] }
  | { type: 'deltas'; runId: string; events: SeqEvent[] }
  | { type: 'resync'; reason: string }
  | { type: 'run.removed'; runId: string };

/** Browser → server messages on /ws. */
export type ClientMessage =
  /** Subscribe to a run; the server replays every event with seq > afterSeq, then streams. */
  { type: 'subscribe'; runId: string; afterSeq: number } | { type: 'unsubscribe'; runId: string };

/** Exhaustiveness helper for `switch` statements over unions. */
export function assertNever(x: never): never {
  throw new Error(`unexpected variant: ${JSON.stringify(x)}`);
}
