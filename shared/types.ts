/**
 * Domain types shared by the engine, the target, the dashboard and the web UI.
 * Pure data: no Node or DOM globals, no local imports. The records that cross
 * a process boundary (a stall report, a breaker cause, counts) are TypeBox
 * schemas with their types derived by `Static`: one definition, checked where
 * they arrive (shared/protocol/protocol.ts, shared/protocol/telemetry.ts) and typed everywhere.
 */
import { Type, type Static } from 'typebox';

/** Lifecycle of one benchmark request (docs/design.md#request-states). */
export type RequestStatus =
  | 'pending'
  | 'queued'
  | 'sent'
  | 'streaming'
  | 'completed'
  | 'failed'
  | 'timed_out'
  | 'cancelled_after_timeout'
  | 'cancelled'
  | 'not_dispatched';

/**
 * End states only, in the order the dashboard lists them.
 * `cancelled_after_timeout`: cancelled by the fail-fast breaker; `cancelled`:
 * aborted in flight by an interrupt (signal, dashboard Cancel) before any
 * trip; `not_dispatched`: unsent. How they are counted: shared/requests/outcomes.ts.
 */
export const REQUEST_END_STATUSES = [
  'completed',
  'failed',
  'timed_out',
  'cancelled_after_timeout',
  'cancelled',
  'not_dispatched',
] as const satisfies readonly RequestStatus[];
export type RequestEndStatus = (typeof REQUEST_END_STATUSES)[number];

/** Whether a value (from a file, the wire or the store) is a request end status. */
export const isRequestEndStatus = (v: unknown): v is RequestEndStatus =>
  (REQUEST_END_STATUSES as readonly unknown[]).includes(v);

/** What stopped a run early: the fail-fast breaker, or an interrupt (signal, dashboard Cancel). */
export const StopCauseSchema = Type.Enum(['breaker', 'interrupt']);
export type StopCause = Static<typeof StopCauseSchema>;

/** Who interrupted a run (result key `interrupt_cause`): a signal, or the dashboard (Cancel, or Mark abandoned). */
export const InterruptCauseSchema = Type.Union([Type.Literal('signal'), Type.Literal('dashboard')]);
export type InterruptCause = Static<typeof InterruptCauseSchema>;

/** How the client opens connections (result key `connection_mode`). */
export type ConnectionMode = 'per_request' | 'keep_alive';

export const RequestEndStatusSchema = Type.Enum(REQUEST_END_STATUSES);

/** Structural timeout kinds; classification never looks at message text. */
export const TimeoutKindSchema = Type.Union([Type.Literal('total'), Type.Literal('first_byte'), Type.Literal('idle')]);
export type TimeoutKind = Static<typeof TimeoutKindSchema>;

/** Verdict of a run (docs/design.md#verdict). */
export const VerdictSchema = Type.Union([
  Type.Literal('passed'),
  Type.Literal('failed'),
  Type.Literal('failed_closed'),
  Type.Literal('interrupted'),
  Type.Literal('errored'),
]);
export type Verdict = Static<typeof VerdictSchema>;

/** Status of a run as the dashboard tracks it. */
export const RunStatusSchema = Type.Union([
  Type.Literal('running'),
  Type.Literal('finished'),
  Type.Literal('interrupted'),
  Type.Literal('errored'),
]);
export type RunStatus = Static<typeof RunStatusSchema>;

/** Code2Wav phases, in order (docs/design.md#code2wav-phases). */
export const C2W_PHASES = ['setup', 'encoder', 'cfm', 'cache_materialization', 'hift', 'output_copy'] as const;
export type C2wPhase = (typeof C2W_PHASES)[number];

/** Fault kinds of the reproduction server's fault plan. */
export type FaultKind = 'block' | 'spin' | 'slow';

export type { StackFrame, StallReport, WatchdogStallReport } from './stalls/stallReport.ts';

/** Bounded phase details: flat string/number/boolean values. */
export const PhaseDetailsSchema = Type.Record(
  Type.String({ maxLength: 128 }),
  Type.Union([Type.String({ maxLength: 4096 }), Type.Number(), Type.Boolean(), Type.Null()]),
);
export type PhaseDetails = Static<typeof PhaseDetailsSchema>;

/** x-request-ids carried by telemetry (a batch holds at most a few thousand). */
export const RequestIdsSchema = Type.Array(Type.String({ maxLength: 512 }), { maxItems: 4096 });

/** What tripped the fail-fast breaker. */
export const BreakerCauseSchema = Type.Object({
  /** Dataset index of the request whose timeout fired first. */
  requestIndex: Type.Integer({ minimum: 0 }),
  requestId: Type.String({ maxLength: 512 }),
  kind: TimeoutKindSchema,
  /** Seconds from the request's start until the timeout fired. */
  elapsedS: Type.Number(),
  /** Last server-side phase known for this request from telemetry, if any. */
  lastPhase: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
});
export type BreakerCause = Static<typeof BreakerCauseSchema>;

const Count = Type.Integer({ minimum: 0 });
/**
 * Counts of request outcomes in a run, as the one rule of shared/requests/outcomes.ts
 * folds them (docs/design.md#counting). `failed` is everything that ended
 * without completing; within it `timedOut`, `cancelledAfterTimeout` (queued
 * and in-flight requests the breaker cancelled), `cancelled` (queued and
 * in-flight requests an interrupt cancelled) and `errored` (the rest) add up
 * to `failed`; `unsent` (unsent) is a subset of whichever of those
 * applied.
 */
export const RunCountsSchema = Type.Object({
  total: Count,
  completed: Count,
  failed: Count,
  timedOut: Count,
  cancelledAfterTimeout: Count,
  cancelled: Count,
  errored: Count,
  unsent: Count,
});
export type RunCounts = Static<typeof RunCountsSchema>;
