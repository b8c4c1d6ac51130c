/**
 * Reply shapes of the dashboard's REST API (TypeBox). The server declares
 * them as Fastify response schemas; the web client types its fetches with
 * `Static<...>`. Times named `...T` are ms since the run's benchmark clock
 * started; `...Ms` are epoch ms; `...S` are seconds (vLLM units).
 */
import { Type, type Static } from 'typebox';
import {
  BreakerCauseSchema,
  InterruptCauseSchema,
  REQUEST_END_STATUSES,
  RunCountsSchema,
  VerdictSchema,
  type RequestStatus,
} from '../types.ts';
import { StallReportSchema } from '../stalls/stallReport.ts';
import { RunSummarySchema } from './protocol.ts';
import { FingerprintSchema, FirstTimeoutSchema } from '../stalls/stallEvidence.ts';
import { ServerIdentitySchema } from '../runInfo/serverIdentity.ts';
import { StoppedBySchema } from '../config/stopRules.ts';

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export { BreakerCauseSchema, RunCountsSchema };

/** The breaker of a run: tripped by any stop rule; the timeout that tripped it, and the rule (docs/design.md#stop-rules). */
export const BreakerStateSchema = Type.Object({
  tripped: Type.Boolean(),
  cause: Nullable(BreakerCauseSchema),
  stoppedBy: Type.Optional(Nullable(StoppedBySchema)),
});

/** One row of the Runs page. */
export const RunListItemSchema = Type.Object({
  id: Type.String(),
  /** Who produced it: the dashboard's run manager, a CLI `--report-to`, or an import. */
  source: Type.Union([Type.Literal('dashboard'), Type.Literal('cli'), Type.Literal('import')]),
  status: Type.String(),
  verdict: Nullable(VerdictSchema),
  label: Nullable(Type.String()),
  model: Nullable(Type.String()),
  /** Base URL, or `embedded`. */
  target: Nullable(Type.String()),
  dataset: Nullable(Type.String()),
  numPrompts: Nullable(Type.Integer()),
  maxConcurrency: Nullable(Type.Integer()),
  requestRate: Nullable(Type.String()),
  failFast: Type.Boolean(),
  createdAtMs: Type.Number(),
  startedAtMs: Nullable(Type.Number()),
  finishedAtMs: Nullable(Type.Number()),
  durationS: Nullable(Type.Number()),
  counts: RunCountsSchema,
  metadata: Type.Record(Type.String(), Type.String()),
  stallCount: Type.Integer(),
  /** The phase most stall reports of this run name. */
  stallPhase: Nullable(Type.String()),
  breaker: BreakerStateSchema,
});
export type RunListItem = Static<typeof RunListItemSchema>;

export const RunListReplySchema = Type.Object({ runs: Type.Array(RunListItemSchema), total: Type.Integer() });
export type RunListReply = Static<typeof RunListReplySchema>;

/** A watchdog stall report as stored. */
export const StallEntrySchema = Type.Object({
  seq: Type.Integer(),
  report: StallReportSchema,
  recovered: Nullable(Type.Object({ stalledS: Type.Number(), ts: Type.Number() })),
  /** Stored with the report (docs/design.md#stall-fingerprints). */
  fingerprint: Type.Optional(FingerprintSchema),
});
export type StallEntry = Static<typeof StallEntrySchema>;

export const RunDetailSchema = Type.Intersect([
  RunListItemSchema,
  Type.Object({
    /** The RunSpec it was started from (dashboard runs). */
    spec: Type.Unknown(),
    /** The run's configuration as recorded (`flatRunConfig`; dashboard and CLI runs). */
    config: Type.Unknown(),
    /** Once finished (null while running, and for a run that was killed before it could finish). */
    summary: Nullable(RunSummarySchema),
    lastSeq: Type.Integer(),
    stallReports: Type.Array(StallEntrySchema),
    /** For imports: which parts of a vLLM result were present. */
    importInfo: Type.Unknown(),
    error: Nullable(Type.String()),
    /**
     * Who interrupted the run: the result's `interrupt_cause`, or the dashboard for a reported run marked
     * abandoned there (it has no result); null when it was not interrupted or nobody knows.
     */
    interruptCause: Nullable(InterruptCauseSchema),
    /** Whether the run is live in this server (events still arriving on /ws). */
    active: Type.Boolean(),
    /** The run's first structural timeout, phase-only stall evidence (docs/design.md#stall-fingerprints). */
    firstTimeout: Nullable(FirstTimeoutSchema),
    /** The target's model list and version as read at the start (docs/design.md#server-identity). */
    serverIdentity: Nullable(ServerIdentitySchema),
    /** Never pruned by retention (docs/design.md#retention). */
    pinned: Type.Boolean(),
    /** When retention removed its request rows and events (its summary, result and stall evidence stay); else null. */
    prunedAtMs: Nullable(Type.Integer()),
    /**
     * Reported events the database refused to store (docs/design.md#outage-buffer): each was acknowledged, then
     * dropped alone (never with other runs' events); 0 when none.
     */
    droppedEvents: Type.Integer(),
    /** The database's words for the last refusal; null when none. */
    droppedError: Nullable(Type.String()),
  }),
]);
export type RunDetail = Static<typeof RunDetailSchema>;

/** A request's state, as `/api/runs/:id/requests?status=` filters by it (docs/design.md#request-states). */
export const RequestStatusSchema = Type.Enum([
  'pending',
  'queued',
  'sent',
  'streaming',
  ...REQUEST_END_STATUSES,
] satisfies RequestStatus[]);

/** One request of a run. End fields stay null/0 until the request ends. */
export const RequestRowSchema = Type.Object({
  index: Type.Integer(),
  requestId: Type.String(),
  status: Type.String(),
  queuedT: Nullable(Type.Number()),
  sentT: Nullable(Type.Number()),
  firstTokenT: Nullable(Type.Number()),
  firstAudioT: Nullable(Type.Number()),
  endT: Nullable(Type.Number()),
  ttftS: Type.Number(),
  e2elS: Type.Number(),
  audioTtfpS: Type.Number(),
  audioDurationS: Type.Number(),
  outputTokens: Type.Number(),
  promptLen: Type.Number(),
  attempts: Type.Integer(),
  error: Type.String(),
  timeoutKind: Nullable(Type.String()),
});
export type RequestRow = Static<typeof RequestRowSchema>;

export const RequestsReplySchema = Type.Object({ total: Type.Integer(), requests: Type.Array(RequestRowSchema) });

/** `events` are shared/protocol/protocol.ts `SeqEvent`s in seq order; `more` = call again with after=last seq. */
export const EventsReplySchema = Type.Object({
  events: Type.Array(Type.Unknown()),
  lastSeq: Type.Integer(),
  more: Type.Boolean(),
});

export const ErrorReplySchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  /** Dotted path of the offending field, e.g. `timeouts.totalS`. */
  field: Type.Optional(Type.String()),
  issues: Type.Optional(
    Type.Array(
      Type.Object({
        field: Type.String(),
        message: Type.String(),
        severity: Type.String(),
        /** An issue with its own code (the memory budget's); the reply's `code` is the first error's. */
        code: Type.Optional(Type.String()),
      }),
    ),
  ),
});
export type ErrorReply = Static<typeof ErrorReplySchema>;

export const StartRunReplySchema = Type.Object({
  id: Type.String(),
  warnings: Type.Array(Type.Object({ field: Type.String(), message: Type.String(), severity: Type.String() })),
});

export const ImportReplySchema = Type.Object({
  runs: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Nullable(Type.String()),
      present: Type.Array(Type.String()),
      missing: Type.Array(Type.String()),
    }),
  ),
});
export type ImportReply = Static<typeof ImportReplySchema>;

export const IngestReplySchema = Type.Object({
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  /** Valid events that matched no run (no runId and no known request id). */
  unjoined: Type.Integer(),
  errors: Type.Array(Type.Object({ line: Type.Integer(), message: Type.String() })),
});
export type IngestReply = Static<typeof IngestReplySchema>;
