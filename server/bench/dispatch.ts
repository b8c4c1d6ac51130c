/**
 * The timed part of a run: the producer walks the arrival schedule, each
 * arrived request waits FIFO for a concurrency slot, then runs to its end
 * state. The fail-fast breaker and an interrupt stop the producer at once
 * (its sleep is abortable), empty the queue (`not_dispatched`) and cancel
 * the requests in flight in one sweep (cancelSweep.ts); `runDispatch`
 * resolves only after every request task has settled and every socket of
 * the sweep is closed.
 */
import type { RequestOutcome } from '../../shared/protocol.ts';
import type { BreakerCause, RequestEndStatus, TimeoutKind } from '../../shared/types.ts';
import { markFailed, newRecord, type RequestRecord } from './client/record.ts';
import { Breaker, type TimeoutReport } from './breaker.ts';
import type { RunEvents } from './events.ts';
import type { AttemptTarget } from './http/attempt.ts';
import { CancelledError } from './http/reasons.ts';
import { cancelAll } from './http/cancelSweep.ts';
import { Cancellation } from './http/cancellation.ts';
import { runRequest, type RequestJob, type RunnerHooks } from './requestRunner.ts';
import { Semaphore } from './semaphore.ts';

export interface DispatchInput {
  target: AttemptTarget;
  events: RunEvents;
  /** Arrival offsets in seconds, one per request. */
  offsets: number[];
  maxConcurrency: number | null;
  failFast: boolean;
  /** Builds request i's headers and body (may read files); called once a slot is held. */
  prepare: (index: number) => Promise<RequestJob>;
  requestId: (index: number) => string;
  promptLen: (index: number) => number;
  interrupt?: AbortSignal;
  lastPhaseOf?: (requestId: string) => string | null | undefined;
  /** Called as each request arrives (leaves the schedule for the slot queue), in order. */
  onArrival?: (index: number) => void;
  /** Told of every structural timeout, synchronously from its timer, after the breaker (run probes). */
  onTimeout?: (r: TimeoutReport) => void;
}

export interface DispatchResult {
  records: RequestRecord[];
  statuses: RequestEndStatus[];
  timeoutKinds: (TimeoutKind | null)[];
  /** Seconds from the clock start until the last request settled. */
  durationS: number;
  cause: BreakerCause | null;
  failFastTripped: boolean;
  interrupted: boolean;
}

export async function runDispatch(inp: DispatchInput): Promise<DispatchResult> {
  const n = inp.offsets.length;
  const { events, target } = inp;
  const records = new Array<RequestRecord>(n);
  const statuses = new Array<RequestEndStatus>(n);
  const timeoutKinds = new Array<TimeoutKind | null>(n).fill(null);
  const sentT = new Array<number | null>(n).fill(null);
  const inFlight = new Map<number, Cancellation>();
  const stop = new AbortController();
  const sem = new Semaphore(inp.maxConcurrency);
  // Dispatcher destructions started by the breaker or an interrupt; awaited before returning.
  const sweeps: Promise<void>[] = [];

  // The counts `breaker.tripped` reports, read when the first timeout stops the run: by the
  // time the cause is chosen (one setImmediate later) the queue is already empty and the
  // timed-out requests have settled, so reading them in onTrip would say 0.
  let atTrip = { inFlight: 0, queued: 0 };
  const breaker = new Breaker(
    inp.failFast,
    (cause) => {
      events.emit({ type: 'breaker.tripped', cause, ...atTrip });
      sweeps.push(cancelAll(inFlight.values(), new CancelledError('breaker'), target.dispatcher));
    },
    inp.lastPhaseOf,
  );
  const onBreakerStop = (): void => {
    atTrip = { inFlight: inFlight.size, queued: sem.waiting }; // before `stop` empties the queue
    stop.abort(breaker.stopSignal.reason);
  };
  // One listener empties the queue, rather than one listener per queued request.
  stop.signal.addEventListener('abort', () => sem.rejectAll(stop.signal.reason as Error), { once: true });
  breaker.stopSignal.addEventListener('abort', onBreakerStop, { once: true });
  const onInterrupt = (): void => {
    const reason = new CancelledError('interrupted');
    stop.abort(reason);
    sweeps.push(cancelAll(inFlight.values(), reason, target.dispatcher));
  };
  if (inp.interrupt?.aborted) onInterrupt();
  else inp.interrupt?.addEventListener('abort', onInterrupt, { once: true });

  const finish = (index: number, record: RequestRecord, status: RequestEndStatus, kind?: TimeoutKind): void => {
    records[index] = record;
    statuses[index] = status;
    if (kind) timeoutKinds[index] = kind;
    events.end(outcomeOf(index, inp.requestId(index), record, status, sentT[index]), kind);
  };
  const notDispatched = (index: number): void => {
    const record = newRecord(inp.promptLen(index), 0);
    const why = stop.signal.reason instanceof CancelledError ? stop.signal.reason.message : 'the run stopped';
    markFailed(record, 'REQ_CANCELLED', `not dispatched: ${why}`, true);
    finish(index, record, 'not_dispatched');
  };

  const runOne = async (index: number): Promise<void> => {
    if (stop.signal.aborted) return notDispatched(index);
    try {
      await sem.acquire();
    } catch {
      return notDispatched(index);
    }
    const cancel = new Cancellation();
    try {
      if (stop.signal.aborted) return notDispatched(index);
      const job = await inp.prepare(index);
      if (stop.signal.aborted) return notDispatched(index);
      inFlight.set(index, cancel);
      const end = await runRequest(
        target,
        job,
        cancel,
        requestHooks(index, job.requestId, events, breaker, sentT, inp.onTimeout),
      );
      finish(index, end.record, end.status, end.timeoutKind);
    } catch (err) {
      // The runner never throws for anything the target does: this is `prepare` failing
      // (a prompt WAV removed mid-run) or a bug of ours — one failed request, not a crashed run.
      const record = newRecord(inp.promptLen(index), 0);
      markFailed(record, 'INTERNAL', (err as Error).message);
      finish(index, record, 'failed');
    } finally {
      inFlight.delete(index);
      sem.release();
    }
  };

  const t0 = events.originMs; // the caller started the run clock
  const tasks: Promise<void>[] = [];
  let next = 0;
  for (; next < n; next++) {
    if (stop.signal.aborted) break;
    try {
      // A loop because one setTimeout cannot wait more than ~24.8 days.
      for (
        let waitMs = t0 + inp.offsets[next] * 1000 - performance.now();
        waitMs > 0;
        waitMs = t0 + inp.offsets[next] * 1000 - performance.now()
      ) {
        await abortableSleep(waitMs, stop.signal);
      }
    } catch {
      break;
    }
    inp.onArrival?.(next);
    events.emit({ type: 'request.queued', index: next, requestId: inp.requestId(next) });
    tasks.push(runOne(next));
  }
  for (let i = next; i < n; i++) notDispatched(i);
  await Promise.all(tasks);
  await breaker.settled();
  await Promise.all(sweeps);
  const durationS = (performance.now() - t0) / 1000;
  breaker.stopSignal.removeEventListener('abort', onBreakerStop);
  inp.interrupt?.removeEventListener('abort', onInterrupt);
  return {
    records,
    statuses,
    timeoutKinds,
    durationS,
    cause: breaker.cause,
    failFastTripped: breaker.cause !== null,
    interrupted: inp.interrupt?.aborted ?? false,
  };
}

/** setTimeout that clears itself when `signal` aborts (no timer left behind). */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, 2_147_483_647),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function outcomeOf(
  index: number,
  requestId: string,
  r: RequestRecord,
  status: RequestEndStatus,
  sentT: number | null,
): RequestOutcome {
  return {
    index,
    requestId,
    status,
    ttftS: r.ttft,
    e2elS: r.latency,
    audioTtfpS: r.audioTtfp,
    audioDurationS: r.audioDuration,
    outputTokens: r.outputTokens,
    promptLen: r.promptLen,
    attempts: r.attempts,
    error: r.error,
    sentT,
  };
}

/** The run could not start (ready check failed): every request is a never-sent placeholder. */
export function skippedDispatch(
  n: number,
  events: RunEvents,
  requestId: (i: number) => string,
  promptLen: (i: number) => number,
  why: string,
): DispatchResult {
  const records: RequestRecord[] = [];
  const statuses: RequestEndStatus[] = [];
  for (let i = 0; i < n; i++) {
    const record = newRecord(promptLen(i), 0);
    markFailed(record, 'REQ_CANCELLED', `not dispatched: ${why}`, true);
    records.push(record);
    statuses.push('not_dispatched');
    events.end(outcomeOf(i, requestId(i), record, 'not_dispatched', null));
  }
  return {
    records,
    statuses,
    timeoutKinds: new Array<TimeoutKind | null>(n).fill(null),
    durationS: 0,
    cause: null,
    failFastTripped: false,
    interrupted: false,
  };
}

/** One request's hooks: its events (sent, first token and audio, progress, warnings), its timeouts to the breaker (then `timeoutHook`). */
function requestHooks(
  index: number,
  requestId: string,
  events: RunEvents,
  breaker: Breaker,
  sentT: (number | null)[],
  timeoutHook?: (r: TimeoutReport) => void,
): RunnerHooks {
  /** The runner makes a fresh record per attempt; the hooks read the latest one. */
  let current: RequestRecord | null = null;
  return {
    onAttempt: (attempt, record) => {
      current = record;
      if (sentT[index] === null) sentT[index] = events.nowT();
      events.emit({ type: 'request.sent', index, requestId, attempt });
    },
    onTimeout: (e) => {
      const r = { index, requestId, kind: e.kind, elapsedS: e.elapsedS };
      breaker.report(r);
      timeoutHook?.(r);
    },
    onMessage: (info) => {
      const rec = current;
      if (!rec) return;
      if (info.firstToken) events.emit({ type: 'request.first_token', index, ttftS: info.ts - rec.startTime });
      if (info.firstAudio) events.emit({ type: 'request.first_audio', index, audioTtfpS: info.ts - rec.startTime });
      events.progress(index, rec.outputTokens, rec.audioDuration);
    },
    onWarning: (message) => events.emit({ type: 'run.warning', index, message }),
  };
}
