/**
 * The pure reducer of a run's numbered event stream.
 *
 * `applyEvents(model, events)` returns a new model and never mutates its
 * input. Within one call it copies each collection at most once (copy on
 * first write), so a batch of thousands of events costs one array copy, not
 * thousands: the live stream arrives in batches of ~50–100 ms.
 *
 * Ordering: events with seq ≤ model.seq are duplicates and are dropped; an
 * event past a gap waits in `pending` until the gap is filled (the live
 * client resubscribes from `model.seq` to fill it).
 */
import {
  assertNever,
  type AccuracyItem,
  type BenchEvent,
  type RunEvent,
  type RunFinished,
  type RequestsUnsent,
  type RunStarted,
  type SeqEvent,
} from '../protocol/protocol.ts';
import { bulkUnsent, countEndedMany } from '../requests/outcomes.ts';
import { isStallEvidence } from '../stalls/stallReport.ts';
import {
  eventRequestIndex,
  foldRequest,
  isRequestEvent,
  tallyStep,
  unsentOutcome,
  type RequestEvent,
} from '../requests/requestLifecycle.ts';
import { applyTelemetry } from './applyTelemetry.ts';
import { foldRun } from './runFold.ts';
import { unsentRangeOf } from './unsentRows.ts';
import { Draft } from './draft.ts';
import { emptyRow, MAX_PENDING, MAX_WARNINGS, type RunModel } from './runModel.ts';

export function applyEvents(model: RunModel, events: readonly SeqEvent[]): RunModel {
  if (events.length === 0) return model;
  const d = new Draft(model);
  let changed = false;
  for (const se of events) {
    if (se.seq <= d.m.seq || d.m.pending[se.seq]) continue; // duplicate
    changed = true;
    if (se.seq > d.m.seq + 1) {
      if (Object.keys(d.m.pending).length >= MAX_PENDING) d.m.needsResync = true;
      else d.own('pending')[se.seq] = se;
      continue;
    }
    applyOne(d, se.event);
    d.m.seq = se.seq;
    // Drain events that were waiting for this gap.
    let next = d.m.pending[d.m.seq + 1];
    while (next) {
      delete d.own('pending')[next.seq];
      applyOne(d, next.event);
      d.m.seq = next.seq;
      next = d.m.pending[d.m.seq + 1];
    }
  }
  if (!changed) return model; // only duplicates: keep identity so React skips a render
  if (d.m.needsResync && Object.keys(d.m.pending).length === 0) d.m.needsResync = false;
  return d.m;
}

function applyOne(d: Draft, e: RunEvent): void {
  if (e.t > d.m.lastT) d.m.lastT = e.t;
  switch (e.type) {
    case 'telemetry':
      applyTelemetry(d, e.event, e.t);
      return;
    case 'run.status':
      d.m = foldRun(d.m, e);
      d.m.statusMessage = e.message ?? null;
      if (e.status !== 'running' && d.m.finishedT === null) d.m.finishedT = e.t;
      return;
    default:
      applyBench(d, e);
  }
}

function applyBench(d: Draft, e: BenchEvent): void {
  if (isRequestEvent(e)) return applyRequest(d, e);
  switch (e.type) {
    case 'run.started':
      return applyStarted(d, e);
    case 'requests.unsent':
      return applyUnsent(d, e);
    case 'breaker.tripped':
      d.m = foldRun(d.m, e);
      d.m.breaker = { ...d.m.breaker, t: e.t };
      return;
    case 'run.stopped': {
      const t = d.m.breaker.t ?? e.t;
      d.m = foldRun(d.m, e);
      d.m.breaker = { ...d.m.breaker, t };
      return;
    }
    case 'server.liveness':
      d.m.liveness = { t: e.t, report: e.report };
      return;
    case 'run.finished':
      return applyFinished(d, e);
    case 'run.warning': {
      const w = d.own('warnings');
      if (w.length < MAX_WARNINGS) w.push({ t: e.t, index: e.index, message: e.message });
      return;
    }
    case 'accuracy.started':
      d.m.accuracy = { total: e.total, done: 0, asrModel: e.asrModel, bounds: [...e.bounds] };
      return;
    case 'accuracy.item':
      return applyAccuracyItem(d, e);
    case 'server.stacks':
      // A capture that read no stack is not a stall (its run.warning says what went wrong).
      if (isStallEvidence(e.report)) d.own('stalls').push({ t: e.t, report: e.report, recovered: null });
      return;
    default:
      assertNever(e);
  }
}

function applyStarted(d: Draft, e: RunStarted): void {
  const { t: _t, type: _type, ...info } = e;
  d.m = foldRun(d.m, e);
  d.m.info = info;
  // Pre-size the rows so the timeline shows every request from the start.
  if (d.m.requests.length < e.numRequests) {
    d.m.requests = [...d.m.requests];
    for (let i = d.m.requests.length; i < e.numRequests; i++) d.m.requests.push(emptyRow(i));
  }
}

/** One request event through the one fold (shared/requests/requestLifecycle.ts), as the dashboard hub folds it. */
function applyRequest(d: Draft, e: RequestEvent): void {
  const index = eventRequestIndex(e);
  // A request of an unsent range had ended with it: a late event changes nothing, as in the hub.
  if (d.m.unsent.length > 0 && unsentRangeOf(d.m.unsent, index) && !d.m.requests[index]?.outcome) return;
  const r = d.row(index);
  const id = r.requestId;
  const step = foldRequest(r, e);
  if (r.requestId !== id && r.requestId) d.own('indexById')[r.requestId] = r.index;
  if (step.ended) {
    r.outcome = step.ended;
    d.own('counts');
  }
  if (step.inFlight === 1 && index >= d.m.begunEnd) d.m.begunEnd = index + 1;
  tallyStep(d.m, step);
}

/**
 * The unsent requests of a stopped run, ended together: counted in
 * one step (shared/requests/outcomes.ts) and kept as the range; its rows are read
 * through `shownRow` (unsentRows.ts) as a `request.unsent` of their
 * own would have left them. Only rows of the range that took a slot (none
 * from the engine: a range starts past every request begun) are ended here,
 * so the cost is O(rows begun in the range), not O(range).
 */
function applyUnsent(d: Draft, e: RequestsUnsent): void {
  const { n, ended } = bulkUnsent(e);
  countEndedMany(d.own('counts'), ended, n);
  d.own('unsent').push(e);
  const last = Math.min(e.to, d.m.begunEnd, d.m.requests.length);
  for (let i = e.from; i < last; i++) {
    const shown = d.m.requests[i];
    if (shown.outcome || (shown.status !== 'sent' && shown.status !== 'streaming')) continue;
    const r = d.row(i);
    const o = unsentOutcome(e, i, r.requestId);
    const step = foldRequest(r, { type: 'request.unsent', t: e.t, outcome: o });
    r.outcome = o;
    d.m.inFlight += step.inFlight;
  }
}

/** The verdict, the engine's counts and the breaker by the one run fold; the summary and the end time for the page. */
function applyFinished(d: Draft, e: RunFinished): void {
  d.m = foldRun(d.m, e);
  d.m.summary = e.summary;
  d.m.finishedT = e.t;
}

function applyAccuracyItem(d: Draft, e: AccuracyItem): void {
  const r = d.row(e.index);
  r.accuracy = {
    utteranceId: e.utteranceId,
    reference: e.reference,
    transcript: e.transcript,
    wer: e.wer,
    error: e.error,
    ...(e.detail === undefined ? {} : { detail: e.detail }),
  };
  if (d.m.accuracy) d.m.accuracy = { ...d.m.accuracy, done: d.m.accuracy.done + 1 };
}
