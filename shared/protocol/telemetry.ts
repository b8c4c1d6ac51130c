/**
 * Target → dashboard telemetry: what a reproduction server (or a real
 * vLLM-Omni server, or any CI job) posts to the ingest endpoint as NDJSON,
 * one event per line. Discriminated on `type`, versioned by `v`.
 *
 * One TypeBox schema per event; the types are derived from it (`Static`), and
 * the dashboard checks every line against it before the line is applied.
 * Unknown extra fields are allowed (a newer target may add some); the fields
 * the dashboard reads are checked.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { PhaseDetailsSchema, RequestIdsSchema } from '../types.ts';
import { WatchdogStallReportSchema } from '../stalls/stallReport.ts';
import { Int4 } from '../storage/storable.ts';

export const TELEMETRY_VERSION = 1;

/** Environment variable carrying the token for `--telemetry-url` (an argv would show it in `ps`); the dashboard sets it for the repro server it starts. */
export const TELEMETRY_TOKEN_ENV = 'STALLSCOPE_TELEMETRY_TOKEN';

/** Fields every telemetry event has. */
const Base = {
  /** Protocol version of this event; currently 1. */
  v: Type.Literal(TELEMETRY_VERSION),
  /** Wall-clock milliseconds since the epoch at the source. */
  ts: Type.Number(),
  /** Model served by the emitting stage. */
  model: Type.Optional(Type.String({ maxLength: 256 })),
};

/** A Code2Wav batch decode (one operation) began on a worker. */
export const C2wOpBeginSchema = Type.Object({
  ...Base,
  type: Type.Literal('c2w.op.begin'),
  workerId: Int4(),
  opId: Int4(),
  /** `x-request-id`s of the requests in the batch. */
  requestIds: RequestIdsSchema,
  batchSize: Type.Integer(),
});
export type C2wOpBegin = Static<typeof C2wOpBeginSchema>;

/** An operation entered a phase (or advanced a step inside one). */
export const C2wPhaseEventSchema = Type.Object({
  ...Base,
  type: Type.Literal('c2w.phase'),
  workerId: Int4(),
  opId: Int4(),
  requestIds: RequestIdsSchema,
  phase: Type.String({ maxLength: 256 }),
  details: PhaseDetailsSchema,
});
export type C2wPhaseEvent = Static<typeof C2wPhaseEventSchema>;

/** An operation finished. */
export const C2wOpEndSchema = Type.Object({
  ...Base,
  type: Type.Literal('c2w.op.end'),
  workerId: Int4(),
  opId: Int4(),
  requestIds: RequestIdsSchema,
  durationMs: Type.Number(),
  ok: Type.Boolean(),
  error: Type.Optional(Type.String({ maxLength: 65_536 })),
});
export type C2wOpEnd = Static<typeof C2wOpEndSchema>;

/** The watchdog saw no progress for its timeout: one per operation. */
export const WatchdogStallSchema = Type.Object({
  ...Base,
  type: Type.Literal('watchdog.stall'),
  report: WatchdogStallReportSchema,
});
export type WatchdogStall = Static<typeof WatchdogStallSchema>;

/** A reported operation later completed. */
export const WatchdogRecoveredSchema = Type.Object({
  ...Base,
  type: Type.Literal('watchdog.recovered'),
  workerId: Int4(),
  opId: Int4(),
  requestIds: RequestIdsSchema,
  /** Seconds from the last progress to completion. */
  stalledS: Type.Number(),
});
export type WatchdogRecovered = Static<typeof WatchdogRecoveredSchema>;

/** A worker started or stopped executing an operation. */
export const WorkerBusySchema = Type.Object({
  ...Base,
  type: Type.Literal('worker.busy'),
  workerId: Int4(),
  opId: Int4(),
});
export type WorkerBusy = Static<typeof WorkerBusySchema>;
export const WorkerIdleSchema = Type.Object({ ...Base, type: Type.Literal('worker.idle'), workerId: Int4() });
export type WorkerIdle = Static<typeof WorkerIdleSchema>;

/** Stage-level progress for one request (thinker/talker/code2wav). */
export const StageProgressSchema = Type.Object({
  ...Base,
  type: Type.Literal('stage.progress'),
  requestId: Type.String({ maxLength: 512 }),
  stage: Type.Union([Type.Literal('thinker'), Type.Literal('talker'), Type.Literal('code2wav')]),
  /** e.g. tokens emitted, codes emitted, windows decoded. */
  count: Type.Number(),
  done: Type.Optional(Type.Boolean()),
});
export type StageProgress = Static<typeof StageProgressSchema>;

/** Telemetry sink dropped events (bounded queue overflow or unreachable sink). */
export const TelemetryDroppedSchema = Type.Object({
  ...Base,
  type: Type.Literal('telemetry.dropped'),
  count: Type.Integer({ minimum: 0 }),
});
export type TelemetryDropped = Static<typeof TelemetryDroppedSchema>;

export const TelemetryEventSchema = Type.Union([
  C2wOpBeginSchema,
  C2wPhaseEventSchema,
  C2wOpEndSchema,
  WatchdogStallSchema,
  WatchdogRecoveredSchema,
  WorkerBusySchema,
  WorkerIdleSchema,
  StageProgressSchema,
  TelemetryDroppedSchema,
]);
export type TelemetryEvent = Static<typeof TelemetryEventSchema>;

export type TelemetryType = TelemetryEvent['type'];

/** Each variant by its `type` literal (to check one variant and name its fields in errors). */
export const TELEMETRY_VARIANTS: ReadonlyMap<string, TSchema> = new Map(
  TelemetryEventSchema.anyOf.map((s) => [s.properties.type.const as string, s as TSchema]),
);
