/**
 * What one request event does to that request's row: the one fold of the
 * request lifecycle, used by the dashboard hub (its live rows and the rows
 * it stores), the browser's run model, the Perfetto export (its in-flight
 * counter) and the CLI progress bar. The outcome counts go through the one
 * counting rule (shared/requests/outcomes.ts).
 *
 * The engine emits a request's events in this order (server/engine/dispatch/dispatch.ts,
 * requestRunner.ts): `queued` when it arrives; `sent` per attempt (a
 * transport failure retries with a new `sent`); its attempt's messages
 * (`first_token`, `first_audio`, `progress`) between a `sent` and the end;
 * one end event. The fold's rules follow from it:
 * - an end is final: any later event of that request changes nothing;
 * - an attempt's message says the answer is arriving: the request is
 *   `streaming` and holds a slot, also when its `sent` never reached this
 *   reader (a reporter whose queue overflowed drops events and goes on);
 * - at the end the outcome is authoritative: it carries the request's id,
 *   status, attempts, tokens, audio and first send time as the engine
 *   measured them (the stored row has always taken them from there).
 *
 * No I/O and no state of its own: `foldRequest` writes into the row it is
 * handed (the hub's own row, the browser's per-batch copy) and returns what
 * changed for the run's tallies.
 */
import type {
  RequestCancelled,
  RequestCompleted,
  RequestFailed,
  RequestFirstAudio,
  RequestFirstToken,
  RequestUnsent,
  RequestsUnsent,
  RequestOutcome,
  RequestProgress,
  RequestQueued,
  RequestSent,
  RequestTimedOut,
  RunEvent,
} from '../protocol/protocol.ts';
import { isRequestEndStatus as isEndStatus, type RequestStatus, type RunCounts } from '../types.ts';
import { countEnded } from './outcomes.ts';

/**
 * The fields of a request's row that its lifecycle events write, named as the
 * stored row and the REST reply name them (shared/protocol/apiSchemas.ts RequestRow).
 * Times are ms since the run's clock started.
 */
export interface RequestLifecycle {
  index: number;
  requestId: string;
  status: RequestStatus;
  queuedT: number | null;
  /** The latest attempt's send while in flight; the first attempt's once ended (the outcome's). */
  sentT: number | null;
  firstTokenT: number | null;
  firstAudioT: number | null;
  endT: number | null;
  attempts: number;
  outputTokens: number;
  audioDurationS: number;
  timeoutKind: string | null;
}

type RequestEndEvent = RequestCompleted | RequestFailed | RequestTimedOut | RequestCancelled | RequestUnsent;

export type RequestEvent =
  RequestQueued | RequestSent | RequestFirstToken | RequestFirstAudio | RequestProgress | RequestEndEvent;

const REQUEST_EVENT_TYPES: ReadonlySet<string> = new Set<RequestEvent['type']>([
  'request.queued',
  'request.sent',
  'request.first_token',
  'request.first_audio',
  'request.progress',
  'request.completed',
  'request.failed',
  'request.timed_out',
  'request.cancelled',
  'request.unsent',
]);

export function isRequestEvent(e: RunEvent): e is RequestEvent {
  return REQUEST_EVENT_TYPES.has(e.type);
}

/** The dataset index of the request an event concerns. */
export function eventRequestIndex(e: RequestEvent): number {
  return 'outcome' in e ? e.outcome.index : e.index;
}

/**
 * The outcome a `request.unsent` of request `index` would carry,
 * for a request ended by a `requests.unsent` range: an unsent
 * request's zeros, the range's error and stop cause (the prompt length,
 * which the range does not carry, reads 0).
 */
export function unsentOutcome(e: RequestsUnsent, index: number, requestId: string): RequestOutcome {
  const o: RequestOutcome = {
    index,
    requestId,
    status: 'not_dispatched',
    ttftS: 0,
    e2elS: 0,
    audioTtfpS: 0,
    audioDurationS: 0,
    outputTokens: 0,
    promptLen: 0,
    attempts: 0,
    error: e.error,
    sentT: null,
  };
  if (e.stoppedBy) o.stoppedBy = e.stoppedBy;
  return o;
}

/** A request nothing has happened to yet. */
export function blankRequest(index: number, requestId = ''): RequestLifecycle {
  return {
    index,
    requestId,
    status: 'pending',
    queuedT: null,
    sentT: null,
    firstTokenT: null,
    firstAudioT: null,
    endT: null,
    attempts: 0,
    outputTokens: 0,
    audioDurationS: 0,
    timeoutKind: null,
  };
}

/** True for the states in which a request holds a concurrency slot. */
function isInFlight(s: RequestStatus): boolean {
  return s === 'sent' || s === 'streaming';
}

/** What one event changed for the run's tallies. */
export interface RequestStep {
  /** +1: the request took a slot; -1: it let go of one; 0: neither. */
  inFlight: -1 | 0 | 1;
  /** The outcome of the request this event ended, to count (shared/requests/outcomes.ts); null otherwise. */
  ended: RequestOutcome | null;
}

/** Shared steps of the events that end nothing (frozen: never written). */
const UNCHANGED: RequestStep = Object.freeze({ inFlight: 0, ended: null });
const TOOK_SLOT: RequestStep = Object.freeze({ inFlight: 1, ended: null });

/**
 * Folds one event of request `row.index` into `row` (in place) and returns
 * what it changed for the run's tallies. An event of an ended request
 * changes nothing.
 */
export function foldRequest(row: RequestLifecycle, e: RequestEvent): RequestStep {
  if (isEndStatus(row.status)) return UNCHANGED;
  switch (e.type) {
    case 'request.queued':
      row.requestId = e.requestId;
      row.queuedT = e.t;
      if (row.status === 'pending') row.status = 'queued';
      return UNCHANGED;
    case 'request.sent': {
      const took = !isInFlight(row.status);
      row.requestId = e.requestId;
      // A retry starts the attempt's record afresh, as the engine does.
      row.status = 'sent';
      row.sentT = e.t;
      row.attempts = e.attempt;
      row.firstTokenT = null;
      row.firstAudioT = null;
      return took ? TOOK_SLOT : UNCHANGED;
    }
    case 'request.first_token':
      row.firstTokenT = e.t;
      return streaming(row);
    case 'request.first_audio':
      row.firstAudioT = e.t;
      return streaming(row);
    case 'request.progress':
      // The hottest event of a live run: plain field writes, no allocation.
      row.outputTokens = e.outputTokens;
      row.audioDurationS = e.audioS;
      return streaming(row);
    default:
      return end(row, e);
  }
}

/** An attempt's message arrived: the answer is streaming (and its request in flight, were its `sent` lost). */
function streaming(row: RequestLifecycle): RequestStep {
  const took = !isInFlight(row.status);
  row.status = 'streaming';
  return took ? TOOK_SLOT : UNCHANGED;
}

function end(row: RequestLifecycle, e: RequestEndEvent): RequestStep {
  const o = e.outcome;
  const released = isInFlight(row.status);
  row.requestId = o.requestId;
  row.status = o.status;
  row.endT = e.t;
  row.attempts = o.attempts;
  row.outputTokens = o.outputTokens;
  row.audioDurationS = o.audioDurationS;
  if (o.sentT !== null && o.sentT !== undefined) row.sentT = o.sentT; // undefined in hand-written or old events
  row.timeoutKind = e.type === 'request.timed_out' ? e.kind : null;
  return { inFlight: released ? -1 : 0, ended: o };
}

/** A run's tallies: its outcome counts and how many requests hold a slot. */
export interface RequestTally {
  counts: RunCounts;
  inFlight: number;
}

/** Adds one step to a run's tallies (in place); counts through the one counting rule. */
export function tallyStep(t: RequestTally, s: RequestStep): void {
  t.inFlight += s.inFlight;
  if (s.ended) countEnded(t.counts, s.ended);
}
