/**
 * Browser ↔ dashboard contract, and the engine's domain events.
 *
 * The engine emits `BenchEvent`s through a plain subscriber; the dashboard
 * stores them per run with a `seq` and streams them over the WebSocket as
 * `ServerMessage`s. Telemetry from a target enters the same per-run stream
 * wrapped as `telemetry` events, joined to requests by `x-request-id`.
 */
import { Type, type Static, type TSchema } from 'typebox';
import type { StoreHealth } from './storeHealth.ts';
import type { TelemetryEvent } from './telemetry.ts';
import {
  BreakerCauseSchema,
  RequestEndStatusSchema,
  RunCountsSchema,
  StopCauseSchema,
  TimeoutKindSchema,
  VerdictSchema,
  type InterruptCause,
  type RunCounts,
  type RunStatus,
  type Verdict,
  type BreakerCause,
} from '../types.ts';
import { ServerStacksReportSchema } from '../stalls/stallReport.ts';
import { ServerIdentitySchema } from '../runInfo/serverIdentity.ts';
import { StoppedBySchema, type StoppedBy } from '../config/stopRules.ts';
import { LivenessReportSchema } from '../stalls/liveness.ts';

/**
 * 2: `run.stopped` (a stop rule tripped), `server.liveness` (what the server
 * still answered at the stall) and `RunSummary.stoppedBy`.
 * 3: one event for the unsent requests of a stopped run (docs/design.md#bulk-unsent).
 * 4: one word, unsent, for a request not sent: the events `request.unsent` and
 * `requests.unsent`, the counts' `unsent`, the summary's `breakerTripped` (any stop rule
 * tripped the breaker). What older reporters post and older stores hold under the names
 * of 3 is read under these (legacyNames.ts, docs/design.md#legacy-names).
 */
export const PROTOCOL_VERSION = 4;

/**
 * The engine's events are TypeBox schemas with their types derived by
 * `Static`: the same definition types the engine and checks what a CLI posts
 * to `POST /api/runs/:id/events` (docs/design.md#reported-runs). Extra fields are
 * allowed (a newer CLI may add some); the fields the dashboard reads are checked.
 */
const T = {
  /** Milliseconds since the run's benchmark clock started (monotonic). */
  t: Type.Number(),
};
/**
 * The most requests one run may declare (`run.started.numRequests`): a
 * dashboard holds 8 bytes per queued request of a live run, so the bound is
 * also its memory bound (80 MB). Every index and count a reporter sends is
 * further checked against what its own run declared (docs/design.md).
 */
export const MAX_RUN_REQUESTS = 10_000_000;
/** Dataset index of a request. */
const Index = Type.Integer({ minimum: 0, maximum: MAX_RUN_REQUESTS - 1 });
const RequestId = Type.String({ maxLength: 512 });

/** The run's clock started (after ready check and warmups). */
export const RunStartedSchema = Type.Object({
  ...T,
  type: Type.Literal('run.started'),
  runId: Type.String({ maxLength: 200 }),
  /** Wall-clock ms (epoch) at t = 0. */
  startedAtMs: Type.Number(),
  numRequests: Type.Integer({ minimum: 0, maximum: MAX_RUN_REQUESTS }),
  maxConcurrency: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  requestRate: Type.Union([Type.Number(), Type.Literal('inf')]),
  failFast: Type.Boolean(),
  /** The run's stop rules as written (`--stop-on`; docs/design.md#stop-rules). */
  stopOn: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 16 })),
  model: Type.String({ maxLength: 1024 }),
  baseUrl: Type.String({ maxLength: 4096 }),
  /** The target's model list and version, read at the start (absent: not read). */
  serverIdentity: Type.Optional(ServerIdentitySchema),
  /**
   * Realtime runs (docs/design.md#realtime): consecutive requests `turnsPerSession` at a time are the turns
   * of one WebSocket session, drawn as one timeline row. Absent: requests are independent.
   */
  turnsPerSession: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RUN_REQUESTS })),
});
export type RunStarted = Static<typeof RunStartedSchema>;

/** A request arrived (per the arrival schedule) and waits for a concurrency slot. */
export const RequestQueuedSchema = Type.Object({
  ...T,
  type: Type.Literal('request.queued'),
  index: Index,
  requestId: RequestId,
});
export type RequestQueued = Static<typeof RequestQueuedSchema>;

/** A request was sent (attempt counts from 1; a retry sends again). */
export const RequestSentSchema = Type.Object({
  ...T,
  type: Type.Literal('request.sent'),
  index: Index,
  requestId: RequestId,
  attempt: Type.Integer({ minimum: 1 }),
});
export type RequestSent = Static<typeof RequestSentSchema>;

export const RequestFirstTokenSchema = Type.Object({
  ...T,
  type: Type.Literal('request.first_token'),
  index: Index,
  /** Seconds from the request's start. */
  ttftS: Type.Number(),
});
export type RequestFirstToken = Static<typeof RequestFirstTokenSchema>;

export const RequestFirstAudioSchema = Type.Object({
  ...T,
  type: Type.Literal('request.first_audio'),
  index: Index,
  audioTtfpS: Type.Number(),
});
export type RequestFirstAudio = Static<typeof RequestFirstAudioSchema>;

/** Progress of a streaming request (throttled by the emitter). */
export const RequestProgressSchema = Type.Object({
  ...T,
  type: Type.Literal('request.progress'),
  index: Index,
  outputTokens: Type.Number(),
  audioS: Type.Number(),
});
export type RequestProgress = Static<typeof RequestProgressSchema>;

/** Per-request metrics carried by the end events. */
export const RequestOutcomeSchema = Type.Object({
  index: Index,
  requestId: RequestId,
  status: RequestEndStatusSchema,
  /** Seconds (vLLM units). 0 when not measured. */
  ttftS: Type.Number(),
  e2elS: Type.Number(),
  audioTtfpS: Type.Number(),
  audioDurationS: Type.Number(),
  outputTokens: Type.Number(),
  promptLen: Type.Number(),
  attempts: Type.Integer({ minimum: 0 }),
  error: Type.String({ maxLength: 65_536 }),
  /** Ms since run start when the request was sent (null if unsent). */
  sentT: Type.Union([Type.Number(), Type.Null()]),
  /**
   * What stopped the run before this request ended normally: set on
   * `not_dispatched` (and on cancellations), so the counting rule
   * (shared/requests/outcomes.ts) classifies the request from its own outcome, in
   * whatever order the events arrive. Absent: nothing stopped it.
   */
  stoppedBy: Type.Optional(Type.Union([StopCauseSchema, Type.Null()])),
  /**
   * A request the target answered with a status other than 200: the status and the first line of its body (at most
   * 200 characters; null for an empty body). `error` stays the reason phrase vLLM records ("Not Found").
   */
  http: Type.Optional(
    Type.Object({
      status: Type.Integer({ minimum: 100, maximum: 999 }),
      bodyLine: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
    }),
  ),
});
export type RequestOutcome = Static<typeof RequestOutcomeSchema>;

const Ended = <K extends string>(type: K) =>
  Type.Object({ ...T, type: Type.Literal(type), outcome: RequestOutcomeSchema });

export const RequestCompletedSchema = Ended('request.completed');
export type RequestCompleted = Static<typeof RequestCompletedSchema>;
export const RequestFailedSchema = Ended('request.failed');
export type RequestFailed = Static<typeof RequestFailedSchema>;
export const RequestTimedOutSchema = Type.Object({
  ...T,
  type: Type.Literal('request.timed_out'),
  kind: TimeoutKindSchema,
  outcome: RequestOutcomeSchema,
});
export type RequestTimedOut = Static<typeof RequestTimedOutSchema>;
/** Aborted in flight: by the breaker (`cancelled_after_timeout`) or an interrupt (`cancelled`). */
export const RequestCancelledSchema = Ended('request.cancelled');
export type RequestCancelled = Static<typeof RequestCancelledSchema>;
/** Unsent: cancelled from the queue (breaker or interrupt), never arrived, or the run never started. */
export const RequestUnsentSchema = Ended('request.unsent');
export type RequestUnsent = Static<typeof RequestUnsentSchema>;

/**
 * The requests of dataset indices [from, to) were unsent, all for the
 * same reason: the run stopped before they started (or never started). One
 * event instead of one `request.unsent` each, so the stop of a
 * million-request run costs the same as any other (docs/design.md#bulk-unsent).
 * Each counts as a `request.unsent` with this error and stop cause
 * would (shared/requests/outcomes.ts); their other fields are an unsent request's
 * (zeros, no send time, no attempt).
 */
export const RequestsUnsentSchema = Type.Object({
  ...T,
  type: Type.Literal('requests.unsent'),
  from: Index,
  /** Exclusive. */
  to: Type.Integer({ minimum: 1, maximum: MAX_RUN_REQUESTS }),
  error: Type.String({ maxLength: 65_536 }),
  /** What stopped the run before these were sent (absent or null: it never started). */
  stoppedBy: Type.Optional(Type.Union([StopCauseSchema, Type.Null()])),
});
export type RequestsUnsent = Static<typeof RequestsUnsentSchema>;

export const BreakerTrippedSchema = Type.Object({
  ...T,
  type: Type.Literal('breaker.tripped'),
  cause: BreakerCauseSchema,
  /** Counts at trip time. */
  inFlight: Type.Integer({ minimum: 0 }),
  queued: Type.Integer({ minimum: 0 }),
});
export type BreakerTripped = Static<typeof BreakerTrippedSchema>;

/**
 * A stop rule tripped (docs/design.md#stop-rules): the run stops as after a
 * fail-fast trip. A `timeouts` rule's trip also emits `breaker.tripped`
 * first, with the timeout that tripped it.
 */
export const RunStoppedSchema = Type.Object({
  ...T,
  type: Type.Literal('run.stopped'),
  stoppedBy: StoppedBySchema,
  /** Counts at trip time. */
  inFlight: Type.Integer({ minimum: 0 }),
  queued: Type.Integer({ minimum: 0 }),
});
export type RunStopped = Static<typeof RunStoppedSchema>;

/** Summary carried by `run.finished`; `metrics` holds the vLLM result keys. */
export const RunSummarySchema = Type.Object({
  verdict: VerdictSchema,
  verdictReasons: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 1000 }),
  counts: RunCountsSchema,
  durationS: Type.Number(),
  breakerTripped: Type.Boolean(),
  cause: Type.Union([BreakerCauseSchema, Type.Null()]),
  /** The stop rule that stopped the run (absent or null: none did). */
  stoppedBy: Type.Optional(Type.Union([StoppedBySchema, Type.Null()])),
  /** Flat vLLM-style result keys (mean_ttft_ms, completed, ...). */
  metrics: Type.Record(
    Type.String({ maxLength: 256 }),
    Type.Union([Type.Number(), Type.String({ maxLength: 4096 }), Type.Null()]),
  ),
  resultFile: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
});
export type RunSummary = Static<typeof RunSummarySchema>;

export const RunFinishedSchema = Type.Object({ ...T, type: Type.Literal('run.finished'), summary: RunSummarySchema });
export type RunFinished = Static<typeof RunFinishedSchema>;

/** A warning concerning the run or one request (e.g. dropped WAV chunk). */
export const RunWarningSchema = Type.Object({
  ...T,
  type: Type.Literal('run.warning'),
  index: Type.Optional(Index),
  message: Type.String({ maxLength: 65_536 }),
});
export type RunWarning = Static<typeof RunWarningSchema>;

/**
 * The Seed-TTS gate (`--seed-tts-wer-eval`) started transcribing the run's
 * answers, after the benchmark (docs/design.md#accuracy-gate).
 */
export const AccuracyStartedSchema = Type.Object({
  ...T,
  type: Type.Literal('accuracy.started'),
  /** Utterances to account for (every request of the run). */
  total: Type.Integer({ minimum: 0, maximum: MAX_RUN_REQUESTS }),
  asrModel: Type.String({ maxLength: 256 }),
  /** The run's `--threshold` expressions on seed_tts_* keys (the gate's bounds), as written. */
  bounds: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 64 }),
});
export type AccuracyStarted = Static<typeof AccuracyStartedSchema>;

/** One utterance's outcome: its transcript and WER, or why it was excluded. */
export const AccuracyItemSchema = Type.Object({
  ...T,
  type: Type.Literal('accuracy.item'),
  index: Index,
  utteranceId: Type.String({ maxLength: 512 }),
  reference: Type.String({ maxLength: 65_536 }),
  transcript: Type.Union([Type.String({ maxLength: 65_536 }), Type.Null()]),
  wer: Type.Union([Type.Number(), Type.Null()]),
  /** Why the utterance is excluded from the mean (vLLM-Omni's item error), or null. */
  error: Type.Union([Type.String({ maxLength: 65_536 }), Type.Null()]),
  detail: Type.Optional(Type.String({ maxLength: 65_536 })),
});
export type AccuracyItem = Static<typeof AccuracyItemSchema>;

/**
 * The server's process tree as py-spy read it (`--capture-server-stacks`,
 * `--server-stall-after-s`): a stall report of source `py-spy`.
 */
export const ServerStacksCapturedSchema = Type.Object({
  ...T,
  type: Type.Literal('server.stacks'),
  report: ServerStacksReportSchema,
});
export type ServerStacksCaptured = Static<typeof ServerStacksCapturedSchema>;

/**
 * What the server still answered at the first stall evidence
 * (`--probe-liveness-at-stall`; docs/design.md#liveness-at-stall).
 */
export const ServerLivenessSchema = Type.Object({
  ...T,
  type: Type.Literal('server.liveness'),
  report: LivenessReportSchema,
});
export type ServerLiveness = Static<typeof ServerLivenessSchema>;

/** The events the benchmark engine emits. */
export const BenchEventSchema = Type.Union([
  RunStartedSchema,
  RequestQueuedSchema,
  RequestSentSchema,
  RequestFirstTokenSchema,
  RequestFirstAudioSchema,
  RequestProgressSchema,
  RequestCompletedSchema,
  RequestFailedSchema,
  RequestTimedOutSchema,
  RequestCancelledSchema,
  RequestUnsentSchema,
  RequestsUnsentSchema,
  BreakerTrippedSchema,
  RunStoppedSchema,
  RunFinishedSchema,
  RunWarningSchema,
  AccuracyStartedSchema,
  AccuracyItemSchema,
  ServerStacksCapturedSchema,
  ServerLivenessSchema,
]);
export type BenchEvent = Static<typeof BenchEventSchema>;

export type BenchEventType = BenchEvent['type'];

/** Each variant by its `type` literal (to check one variant and name its fields in errors). */
export const BENCH_EVENT_VARIANTS: ReadonlyMap<string, TSchema> = new Map(
  BenchEventSchema.anyOf.map((s) => [s.properties.type.const as string, s as TSchema]),
);

interface EventBase {
  /** Milliseconds since the run's benchmark clock started (monotonic). */
  t: number;
}

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
  /** Who interrupted the run, when the dashboard knows (a reported run marked abandoned: `dashboard`). */
  interruptCause?: InterruptCause;
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
  /** The breaker: tripped by any stop rule; `cause` the timeout of a timeouts rule, `stoppedBy` the rule. */
  breaker: { tripped: boolean; cause: BreakerCause | null; stoppedBy?: StoppedBy | null };
  verdict: Verdict | null;
  /** Who interrupted the run, when the dashboard ended it interrupted and knows (a reported run marked abandoned). */
  interruptCause?: InterruptCause;
}

/** Server → browser messages on /ws. */
export type ServerMessage =
  | { type: 'hello'; v: typeof PROTOCOL_VERSION }
  | { type: 'snapshot'; runs: RunState[] }
  | { type: 'deltas'; runId: string; events: SeqEvent[] }
  | { type: 'resync'; reason: string }
  | { type: 'run.removed'; runId: string }
  /** The store's health: sent after the snapshot and whenever the database goes away or comes back. */
  | { type: 'store'; health: StoreHealth };

/** Browser → server messages on /ws (checked against this schema by the server). */
export const ClientMessageSchema = Type.Union([
  /** Subscribe to a run; the server replays every event with seq > afterSeq, then streams. */
  Type.Object({
    type: Type.Literal('subscribe'),
    runId: Type.String({ minLength: 1, maxLength: 200 }),
    afterSeq: Type.Integer({ minimum: 0 }),
  }),
  Type.Object({ type: Type.Literal('unsubscribe'), runId: Type.String({ minLength: 1, maxLength: 200 }) }),
]);
export type ClientMessage = Static<typeof ClientMessageSchema>;

/** Exhaustiveness helper for `switch` statements over unions. */
export function assertNever(x: never): never {
  throw new Error(`unexpected variant: ${JSON.stringify(x)}`);
}
