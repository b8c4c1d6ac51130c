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
import type { BreakerCause, RequestEndStatus, StopCause, TimeoutKind } from '../../shared/types.ts';
import { compactRecord, markFailed, newRecord, placeholderRecord, type RequestRecord } from './client/record.ts';
import { Breaker, type TimeoutReport } from './breaker.ts';
import type { RunEvents } from './events.ts';
import type { AttemptTarget } from './http/attempt.ts';
import { CancelledError } from './http/reasons.ts';
import { cancelAll, type Sweeper } from './http/cancelSweep.ts';
import { Cancellation } from './http/cancellation.ts';
import { runRequest, type RequestJob, type RunnerHooks } from './requestRunner.ts';
import type { TimeoutError } from './http/reasons.ts';
import type { MessageInfo } from './client/streamParser.ts';
import { CLEANUP_DEADLINE_MS } from './http/dispatcher.ts';

export interface DispatchInput {
  target: AttemptTarget;
  /** Closes every connection of the run on a trip or an interrupt (RunConnections). */
  connections: Sweeper;
  events: RunEvents;
  log?: (line: string) => void;
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
  /** Per request: what stopped the run before it ended on its own (see RequestOutcome.stoppedBy). */
  stoppedBy: (StopCause | null)[];
  timeoutKinds: (TimeoutKind | null)[];
  /** Seconds from the clock start until the last request settled. */
  durationS: number;
  cause: BreakerCause | null;
  failFastTripped: boolean;
  /** Stopped by an interrupt before any trip (a signal after a trip leaves the run failed_closed). */
  interrupted: boolean;
  /** Sockets the sweeps had to destroy one by one after their deadline (expected 0). */
  cleanupForcedSockets: number;
}

/**
 * Requests handled per turn of the event loop when many are due at once: arrivals of a rate-inf
 * run, and the never-sent requests a stopped run reports.
 */
export const PER_TURN = 4096;

export async function runDispatch(inp: DispatchInput): Promise<DispatchResult> {
  const n = inp.offsets.length;
  const { events, target } = inp;
  const records = new Array<RequestRecord>(n);
  const statuses = new Array<RequestEndStatus>(n);
  const stoppedBy = new Array<StopCause | null>(n).fill(null);
  const timeoutKinds = new Array<TimeoutKind | null>(n).fill(null);
  const sentT = new Array<number | null>(n).fill(null);
  const inFlight = new Map<number, Cancellation>();
  const stop = new AbortController();
  const limit = inp.maxConcurrency ?? Number.POSITIVE_INFINITY;
  // The slot queue is two counters, not a promise per request: requests arrive in dataset
  // order and wait FIFO, so the queued ones are exactly [started, arrived). A rate-inf run of
  // a million requests queues them all at once at a few bytes each, so the run's memory stays bounded.
  let arrived = 0;
  let started = 0;
  let active = 0;
  let onIdle: (() => void) | null = null;
  let unsent: Promise<void> | null = null;
  // Connection sweeps started by the breaker or an interrupt; awaited before returning.
  const sweeps: Promise<{ forcedSockets: number }>[] = [];
  let interruptedFirst = false;

  // The counts `breaker.tripped` reports, read when the first timeout stops the run: by the
  // time the cause is chosen (one setImmediate later) the queue is already empty and the
  // timed-out requests have settled, so reading them in onTrip would say 0.
  let atTrip = { inFlight: 0, queued: 0 };
  const breaker = new Breaker(
    inp.failFast,
    (cause) => {
      inp.log?.(
        `Fail-fast: request ${cause.requestIndex} hit its ${cause.kind} timeout after ${cause.elapsedS.toFixed(3)} s; ` +
          `stopping the run (${atTrip.inFlight} in flight, ${atTrip.queued} queued)`,
      );
      events.emit({ type: 'breaker.tripped', cause, ...atTrip });
      sweeps.push(cancelAll(inFlight.values(), new CancelledError('breaker'), inp.connections));
    },
    inp.lastPhaseOf,
  );
  const onBreakerStop = (): void => {
    atTrip = { inFlight: inFlight.size, queued: arrived - started }; // before `stop` empties the queue
    stop.abort(breaker.stopSignal.reason);
  };
  // Every request not started when the run stops (queued, or not arrived yet) is never sent.
  stop.signal.addEventListener(
    'abort',
    () => {
      unsent = reportUnsent(); // awaited at the end of the run
    },
    { once: true },
  );
  breaker.stopSignal.addEventListener('abort', onBreakerStop, { once: true });
  const onInterrupt = (): void => {
    if (stop.signal.aborted) {
      // Already stopping (the breaker tripped): the interrupt only cuts the cleanup short.
      inp.connections.hurry();
      return;
    }
    interruptedFirst = true;
    const reason = new CancelledError('interrupted');
    stop.abort(reason);
    sweeps.push(cancelAll(inFlight.values(), reason, inp.connections));
  };

  const finish = (index: number, record: RequestRecord, status: RequestEndStatus, kind?: TimeoutKind): void => {
    // When the request let go of its slot, whatever its outcome: the exact concurrency sweep counts
    // timed-out and cancelled requests too (shared/metrics/timeline.ts). Never-sent records have none.
    if (record.attempts > 0 && record.endTime === undefined) record.endTime = target.now();
    if (status !== 'not_dispatched') compactRecord(record);
    records[index] = record;
    statuses[index] = status;
    if (kind) timeoutKinds[index] = kind;
    const by = stopCauseOf(status, stop.signal.reason);
    stoppedBy[index] = by;
    events.end(outcomeOf(index, inp.requestId(index), record, status, sentT[index], by), kind);
  };
  // A never-sent request gets no record of its own: one shared placeholder per prompt length
  // (read-only for every reader of the result), so a million of them cost their array slots only.
  const placeholders = new Map<number, RequestRecord>();
  const notDispatched = (index: number): void => {
    const len = inp.promptLen(index);
    let record = placeholders.get(len);
    if (!record) {
      const why = stop.signal.reason instanceof CancelledError ? stop.signal.reason.message : 'the run stopped';
      record = placeholderRecord(len, 'REQ_CANCELLED', `not dispatched: ${why}`, true);
      placeholders.set(len, record);
    }
    finish(index, record, 'not_dispatched');
  };
  /**
   * Reports the requests never started, in dataset order, PER_TURN per turn of the event
   * loop: a million of them must not block it (the dashboard's shutdown deadline is a timer).
   * Starts one microtask after the stop, where the queue's rejections used to land.
   */
  const reportUnsent = async (): Promise<void> => {
    await Promise.resolve();
    const from = started; // nothing starts once stopped, and nothing arrives
    for (let i = from; i < n; i++) {
      if (i > from && (i - from) % PER_TURN === 0) await new Promise<void>((r) => setImmediate(r));
      notDispatched(i);
    }
  };

  // The first wave (the slots' first fill; every start when there is no concurrency limit, as all
  // are then the first wave) starts its requests one after another, each once the previous one's
  // connect is out. A request's start (its TTFT clock) runs in microtasks to its dispatch, and Node
  // issues the connect a tick later: started together, every first-wave request waited for all the
  // others' set-up before any connected, which no later request does (they start one per finished
  // request). vLLM's asyncio loop runs each task to its connect before the next task starts, in one
  // turn of its loop; so does this: runOne hands on in the tick after its dispatch's connect, with
  // no I/O in between (a setImmediate is the fallback when a request stops earlier, e.g. reading a
  // prompt file). Later starts are unchanged: they already pay no one else's set-up.
  let fillToken = 0;
  /** The token of the first-wave start whose hand-on is due (0: none; the next start may go). */
  let handOnDue = 0;
  const handOn = (token: number): void => {
    if (token !== handOnDue) return; // already handed on
    handOnDue = 0;
    pump();
  };
  /** Starts queued requests while slots are free; tells the waiting producer when all is idle. */
  const pump = (): void => {
    while (active < limit && started < arrived && !stop.signal.aborted) {
      const firstFill = started < limit;
      if (firstFill && handOnDue) break; // handOn starts it
      if (firstFill) {
        handOnDue = ++fillToken;
        setImmediate(handOn, handOnDue);
      }
      active++;
      void runOne(started++, firstFill ? handOnDue : 0);
    }
    if (onIdle && active === 0 && (stop.signal.aborted || started === n)) onIdle();
  };

  /** `token`: a first-wave start's, handed on once its request is dispatched (0 for later starts). */
  const runOne = async (index: number, token: number): Promise<void> => {
    const cancel = new Cancellation();
    try {
      const job = await inp.prepare(index);
      if (stop.signal.aborted) return notDispatched(index);
      inFlight.set(index, cancel);
      const running = runRequest(
        target,
        job,
        cancel,
        new RequestHooks(index, job.requestId, events, breaker, sentT, stop.signal, inp.onTimeout),
      );
      // Dispatched (synchronously, above): the next first-wave request starts after this one's connect.
      if (token) process.nextTick(handOn, token);
      const end = await running;
      finish(index, end.record, end.status, end.timeoutKind);
    } catch (err) {
      // The runner never throws for anything the target does: this is `prepare` failing
      // (a prompt WAV removed mid-run) or a bug of ours — one failed request, not a crashed run.
      const record = newRecord(inp.promptLen(index), 0);
      markFailed(record, 'INTERNAL', (err as Error).message);
      finish(index, record, 'failed');
    } finally {
      inFlight.delete(index);
      active--;
      pump();
    }
  };

  // Listened to only now: an interrupt already fired stops the run through what is declared above.
  if (inp.interrupt?.aborted) onInterrupt();
  else inp.interrupt?.addEventListener('abort', onInterrupt, { once: true });

  const t0 = events.originMs; // the caller started the run clock
  let sinceYield = 0;
  for (let next = 0; next < n; next++) {
    if (stop.signal.aborted) break;
    try {
      // A loop because one setTimeout cannot wait more than ~24.8 days.
      for (
        let waitMs = t0 + inp.offsets[next] * 1000 - performance.now();
        waitMs > 0;
        waitMs = t0 + inp.offsets[next] * 1000 - performance.now()
      ) {
        await abortableSleep(waitMs, stop.signal);
        sinceYield = 0;
      }
    } catch {
      break;
    }
    // Arrivals due at once (rate inf) are taken PER_TURN per turn of the event loop: a million
    // of them must not hold it (the first requests run meanwhile; a signal is heard in time).
    if (++sinceYield >= PER_TURN) {
      sinceYield = 0;
      await new Promise<void>((r) => setImmediate(r));
    }
    if (stop.signal.aborted) break; // stopped while this arrival was due: it never arrives
    inp.onArrival?.(next);
    events.queued(next, inp.requestId(next));
    arrived = next + 1;
    pump();
  }
  await new Promise<void>((resolve) => {
    onIdle = resolve;
    pump();
  });
  // Set by the stop's listener: the never-sent requests, reported in batches.
  await (unsent as Promise<void> | null);
  await breaker.settled();
  // A trip decided after the last task settled may have started one more sweep.
  const swept = await Promise.all(sweeps);
  const cleanupForcedSockets = swept.reduce((a, r) => a + r.forcedSockets, 0);
  if (cleanupForcedSockets > 0) {
    const message =
      `cleanup: ${cleanupForcedSockets} socket(s) were still open ${CLEANUP_DEADLINE_MS} ms after the stop ` +
      `and were destroyed one by one`;
    inp.log?.(message);
    events.emit({ type: 'run.warning', message });
  }
  const durationS = (performance.now() - t0) / 1000;
  breaker.stopSignal.removeEventListener('abort', onBreakerStop);
  inp.interrupt?.removeEventListener('abort', onInterrupt);
  return {
    records,
    statuses,
    stoppedBy,
    timeoutKinds,
    durationS,
    cause: breaker.cause,
    failFastTripped: breaker.cause !== null,
    interrupted: interruptedFirst,
    cleanupForcedSockets,
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
  stoppedBy: StopCause | null = null,
): RequestOutcome {
  const o: RequestOutcome = {
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
  // Set, not spread in: a stopped run builds a million of these.
  if (stoppedBy) o.stoppedBy = stoppedBy;
  return o;
}

/**
 * What stopped a request that ended cancelled or never sent: the breaker or
 * an interrupt, read from the status or from the run's stop reason.
 */
function stopCauseOf(status: RequestEndStatus, stopReason: unknown): StopCause | null {
  if (status === 'cancelled_after_timeout') return 'breaker';
  if (status === 'cancelled') return 'interrupt';
  if (status !== 'not_dispatched' || !(stopReason instanceof CancelledError)) return null;
  return stopReason.cause === 'breaker' ? 'breaker' : 'interrupt';
}

/** The run could not start (ready check failed): every request is a never-sent placeholder. */
export async function skippedDispatch(
  n: number,
  events: RunEvents,
  requestId: (i: number) => string,
  promptLen: (i: number) => number,
  why: string,
): Promise<DispatchResult> {
  const records: RequestRecord[] = [];
  const statuses: RequestEndStatus[] = [];
  // One shared placeholder per prompt length, as for the never-sent requests of a stopped run.
  const placeholders = new Map<number, RequestRecord>();
  for (let i = 0; i < n; i++) {
    if (i > 0 && i % PER_TURN === 0) await new Promise<void>((r) => setImmediate(r)); // as a stopped run's queue
    const len = promptLen(i);
    let record = placeholders.get(len);
    if (!record)
      placeholders.set(len, (record = placeholderRecord(len, 'REQ_CANCELLED', `not dispatched: ${why}`, true)));
    records.push(record);
    statuses.push('not_dispatched');
    events.end(outcomeOf(i, requestId(i), record, 'not_dispatched', null));
  }
  return {
    records,
    statuses,
    stoppedBy: new Array<StopCause | null>(n).fill(null),
    timeoutKinds: new Array<TimeoutKind | null>(n).fill(null),
    durationS: 0,
    cause: null,
    failFastTripped: false,
    interrupted: false,
    cleanupForcedSockets: 0,
  };
}

/**
 * One request's hooks, as a class rather than an object of closures: see
 * ParserHooks in http/attempt.ts for the measurement that keeps it so.
 */
class RequestHooks implements RunnerHooks {
  /** The runner makes a fresh record per attempt; the hooks read the latest one. */
  private current: RequestRecord | null = null;

  constructor(
    private readonly index: number,
    private readonly requestId: string,
    private readonly events: RunEvents,
    private readonly breaker: Breaker,
    private readonly sentT: (number | null)[],
    private readonly stopSignal: AbortSignal,
    private readonly timeoutHook?: (r: TimeoutReport) => void,
  ) {}

  /** The run's stop reason once the breaker or an interrupt stopped it (set synchronously by the trip). */
  stopped(): unknown {
    return this.stopSignal.aborted ? this.stopSignal.reason : undefined;
  }

  onAttempt(attempt: number, record: RequestRecord): void {
    this.current = record;
    if (this.sentT[this.index] === null) this.sentT[this.index] = this.events.nowT();
    this.events.emit({ type: 'request.sent', index: this.index, requestId: this.requestId, attempt });
  }

  onTimeout(e: TimeoutError): void {
    const r = { index: this.index, requestId: this.requestId, kind: e.kind, elapsedS: e.elapsedS };
    this.breaker.report(r);
    this.timeoutHook?.(r);
  }

  onMessage(info: MessageInfo): void {
    const rec = this.current;
    if (!rec) return;
    if (info.firstToken)
      this.events.emit({ type: 'request.first_token', index: this.index, ttftS: info.ts - rec.startTime });
    if (info.firstAudio)
      this.events.emit({ type: 'request.first_audio', index: this.index, audioTtfpS: info.ts - rec.startTime });
    this.events.progress(this.index, rec.outputTokens, rec.audioDuration);
  }

  onWarning(message: string): void {
    this.events.emit({ type: 'run.warning', index: this.index, message });
  }
}
