/**
 * The browser's model of one run, built only from the run's numbered event
 * stream (live over the WebSocket, or replayed from the store over REST).
 * Plain data so that the reducer stays pure and testable in Node.
 */
import type {
  BreakerCause,
  InterruptCause,
  PhaseDetails,
  RunCounts,
  RunStatus,
  StallReport,
  Verdict,
} from '../types.ts';
import type { RequestOutcome, RequestsUnsent, RunStarted, RunSummary, SeqEvent } from '../protocol/protocol.ts';
import type { LivenessReport } from '../stalls/liveness.ts';
import type { StoppedBy } from '../config/stopRules.ts';
import { emptyCounts } from '../requests/outcomes.ts';
import { blankRequest, type RequestLifecycle } from '../requests/requestLifecycle.ts';

/**
 * One benchmark request as a timeline row: its lifecycle as the one request
 * fold writes it (shared/requests/requestLifecycle.ts), with its outcome once ended.
 * Times are ms since the run clock started.
 */
export interface RequestView extends RequestLifecycle {
  outcome: RequestOutcome | null;
  /** The Seed-TTS gate's outcome for this request (transcript, WER or why excluded). */
  accuracy: RequestAccuracy | null;
}

export interface RequestAccuracy {
  utteranceId: string;
  reference: string;
  transcript: string | null;
  wer: number | null;
  error: string | null;
  detail?: string;
}

/** The Seed-TTS gate of a run, while and after it transcribes. */
export interface RunAccuracy {
  total: number;
  done: number;
  asrModel: string;
  bounds: string[];
}

/** One phase of a Code2Wav operation; it lasts until the next phase or the op's end. */
export interface OpPhase {
  phase: string;
  t: number;
  details: PhaseDetails;
}

/** One Code2Wav batch decode, joined to its requests by x-request-id. */
export interface OpRecord {
  key: string;
  workerId: number;
  opId: number;
  requestIds: string[];
  beginT: number;
  endT: number | null;
  ok: boolean | null;
  error: string | null;
  phases: OpPhase[];
  stalled: boolean;
}

/** A watchdog report plus what became of it. */
export interface StallRecord {
  /** Run-clock ms of the capture (from the report's wall clock when the run start is known). */
  t: number;
  report: StallReport;
  recovered: { t: number; stalledS: number } | null;
}

export interface RunModel {
  runId: string;
  /** Last seq applied; every event with seq ≤ this one is in the model. */
  seq: number;
  status: RunStatus | 'unknown';
  statusMessage: string | null;
  info: Omit<RunStarted, 't' | 'type'> | null;
  startedAtMs: number | null;
  requests: RequestView[];
  /**
   * Unsent ranges (`requests.unsent`), kept as the events: their
   * rows are left as they were and read through `shownRow` (unsentRows.ts),
   * so the stop of a million-request run costs the model O(1).
   */
  unsent: RequestsUnsent[];
  /** One past the highest index of a request that took a slot: rows a range must end itself lie below it. */
  begunEnd: number;
  /** x-request-id → row index. */
  indexById: Record<string, number>;
  ops: Record<string, OpRecord>;
  /** x-request-id → keys of its ops, in begin order. */
  opsByRequest: Record<string, string[]>;
  stalls: StallRecord[];
  /** Tripped by any stop rule; `cause` the timeout of a timeouts rule, `stoppedBy` the rule and its evidence. */
  breaker: { tripped: boolean; cause: BreakerCause | null; t: number | null; stoppedBy: StoppedBy | null };
  /** What the server still answered at the first stall (`server.liveness`), or null. */
  liveness: { t: number; report: LivenessReport } | null;
  summary: RunSummary | null;
  verdict: Verdict | null;
  /** Who interrupted the run, when the dashboard ended it interrupted and knows (`run.status`). */
  interruptCause?: InterruptCause;
  counts: RunCounts;
  inFlight: number;
  /** Latest run-clock time seen in any event. */
  lastT: number;
  finishedT: number | null;
  warnings: { t: number; index?: number; message: string }[];
  telemetryDropped: number;
  /** Events that arrived ahead of a gap, keyed by seq, applied once the gap fills. */
  pending: Record<number, SeqEvent>;
  /** Set when the pending buffer overflowed: the client must resubscribe from `seq`. */
  needsResync: boolean;
  /** The Seed-TTS gate (`--seed-tts-wer-eval`), or null when the run has none. */
  accuracy: RunAccuracy | null;
}

export const MAX_WARNINGS = 200;
export const MAX_PENDING = 20_000;

export { emptyCounts };

export function emptyRun(runId: string): RunModel {
  return {
    runId,
    seq: 0,
    status: 'unknown',
    statusMessage: null,
    info: null,
    startedAtMs: null,
    requests: [],
    unsent: [],
    begunEnd: 0,
    indexById: {},
    ops: {},
    opsByRequest: {},
    stalls: [],
    breaker: { tripped: false, cause: null, t: null, stoppedBy: null },
    liveness: null,
    summary: null,
    verdict: null,
    counts: emptyCounts(),
    inFlight: 0,
    lastT: 0,
    finishedT: null,
    warnings: [],
    telemetryDropped: 0,
    pending: {},
    needsResync: false,
    accuracy: null,
  };
}

export function emptyRow(index: number, requestId = ''): RequestView {
  return { ...blankRequest(index, requestId), outcome: null, accuracy: null };
}
