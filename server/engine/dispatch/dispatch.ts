/**
 * The timed part of a run: the producer walks the arrival schedule, each
 * arrived request waits FIFO for a concurrency slot, then runs to its end
 * state. A stop rule tripping the breaker (stopRules/; fail-fast is
 * `timeouts>=1`) and an interrupt stop the producer at once
 * (its sleep is abortable), empty the queue (`not_dispatched`) and cancel
 * the requests in flight in one sweep (cancelSweep.ts); `runDispatch`
 * resolves only after every request task has settled and every socket of
 * the sweep is closed. Its parts are in dispatch/.
 */
import type { MetricOptions } from '../../../shared/metrics/index.ts';
import type { StopRule, StoppedBy } from '../../../shared/config/stopRules.ts';
import type { BreakerCause, RequestEndStatus, StopCause, TimeoutKind } from '../../../shared/types.ts';
import { markFailed, newRecord } from '../records/record.ts';
import type { RecordList } from '../../../shared/metrics/input.ts';
import { RequestTable } from '../records/requestTable.ts';
import type { TimeoutReport } from '../stopRules/breaker.ts';
import type { RunEvents } from '../records/events.ts';
import { Cancellation, type AttemptTarget, type Sweeper } from '../transport/index.ts';
import { runRequest, type RequestJob } from './requestRunner.ts';
import { runArrivals } from './arrivalLoop.ts';
import { RequestEndings } from './requestEndings.ts';
import { RequestHooks } from './requestHooks.ts';
import { RunStop } from './runStop.ts';
import { SlotQueue } from './slotQueue.ts';
import { StopRuleWatch } from '../stopRules/watch.ts';

export interface DispatchInput {
  target: AttemptTarget;
  /** Closes every connection of the run on a trip or an interrupt (RunConnections). */
  connections: Sweeper;
  events: RunEvents;
  log?: (line: string) => void;
  /** Arrival offsets in seconds, one per request. */
  offsets: number[];
  maxConcurrency: number | null;
  /** Realtime runs: consecutive requests that are one session's turns and share its concurrency slot. */
  turnsPerSession?: number;
  /** `--omni-fail-fast-on-timeout`: the rule `timeouts>=1`. */
  failFast: boolean;
  /** The run's stop rules (`--stop-on`; docs/design.md#stop-rules), parsed. */
  stopRules?: readonly StopRule[];
  /** What a live threshold rule computes (the run's percentile metrics and percentiles); default none. */
  metrics?: Omit<MetricOptions, 'durationS'>;
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
  /** Every request's record and how it ended, column-wise (docs/design.md#request-table). */
  records: RequestTable;
  statuses: RecordList<RequestEndStatus>;
  /** Per request: what stopped the run before it ended on its own (see RequestOutcome.stoppedBy). */
  stoppedBy: RecordList<StopCause | null>;
  timeoutKinds: RecordList<TimeoutKind | null>;
  /** Seconds from the clock start until the last request settled. */
  durationS: number;
  cause: BreakerCause | null;
  /** The stop rule that stopped the run (fail-fast's `timeouts>=1` included), or null. */
  stopRule: StoppedBy | null;
  /** A stop rule tripped the breaker. */
  breakerTripped: boolean;
  /** Stopped by an interrupt before any trip (a signal after a trip leaves the run failed_closed). */
  interrupted: boolean;
  /** Sockets the sweeps had to destroy one by one after their deadline (expected 0). */
  cleanupForcedSockets: number;
}

/**
 * Runs the schedule: arrivals (dispatch/arrivalLoop.ts) queue for a slot
 * (dispatch/slotQueue.ts, with the first wave's hand-on), each started
 * request runs to its end state (runOne), and the run's stop
 * (dispatch/runStop.ts) ends it early. Resolves once every request task
 * settled, every unsent request was reported and every sweep closed its
 * sockets.
 */
export async function runDispatch(inp: DispatchInput): Promise<DispatchResult> {
  const n = inp.offsets.length;
  const { events, target } = inp;
  const inFlight = new Map<number, Cancellation>();
  const stopCtrl = new AbortController();
  const stopped = stopCtrl.signal;
  const endings = new RequestEndings(n, events, target, inp.requestId, inp.promptLen, stopped);
  const limit = inp.maxConcurrency ?? Number.POSITIVE_INFINITY;
  const queue = new SlotQueue(n, limit, stopped, (index, token) => void runOne(index, token), inp.turnsPerSession);
  const stop = new RunStop(stopCtrl, {
    timeouts: timeoutsRule(inp),
    connections: inp.connections,
    events,
    log: inp.log,
    lastPhaseOf: inp.lastPhaseOf,
    interrupt: inp.interrupt,
    inFlight,
    queue,
    unsentFrom: (from) => endings.unsentFrom(from),
  });
  const rules = new StopRuleWatch({
    rules: inp.stopRules ?? [],
    records: endings.table,
    inFlight,
    requestId: inp.requestId,
    atS: () => events.nowT() / 1000,
    metrics: inp.metrics ?? { percentileMetrics: [], metricPercentiles: [] },
    stopped,
    trip: (s) => stop.breaker.trip(s),
  });
  endings.onEnd = (index, status) => rules.onEnd(index, status);
  const progress = rules.watchesBytes ? () => rules.progress() : undefined;

  /** `token`: a first-wave start's, handed on once its request is dispatched (0 for later starts). */
  const runOne = async (index: number, token: number): Promise<void> => {
    const cancel = new Cancellation();
    try {
      const job = await inp.prepare(index);
      if (stopped.aborted) return endings.unsent(index);
      inFlight.set(index, cancel);
      const hooks = new RequestHooks(
        index,
        job.requestId,
        events,
        stop.breaker,
        endings.table,
        stopped,
        inp.onTimeout,
        progress,
      );
      const running = runRequest(target, job, cancel, hooks);
      // Dispatched (synchronously, above): the next first-wave request starts after this one's connect.
      queue.dispatched(token);
      const end = await running;
      endings.finish(index, end.record, end.status, end.timeoutKind);
    } catch (err) {
      // The runner never throws for anything the target does: this is `prepare` failing
      // (a prompt WAV removed mid-run) or a bug of ours — one failed request, not a crashed run.
      const record = newRecord(inp.promptLen(index), 0);
      markFailed(record, 'INTERNAL', (err as Error).message);
      endings.finish(index, record, 'failed');
    } finally {
      inFlight.delete(index);
      queue.release(index);
    }
  };

  // Listened to only now: an interrupt already fired stops the run through what is declared above.
  stop.listen();
  const t0 = events.originMs; // the caller started the run clock
  await runArrivals(inp.offsets, t0, stopped, (index) => {
    inp.onArrival?.(index);
    events.queued(index, inp.requestId(index));
    queue.arrive(index);
  });
  await queue.idle();
  const cleanupForcedSockets = await stop.settled();
  const durationS = (performance.now() - t0) / 1000;
  rules.stop();
  stop.detach();
  return {
    records: endings.table,
    statuses: endings.table.statuses,
    stoppedBy: endings.table.stoppedBy,
    timeoutKinds: endings.table.timeoutKinds,
    durationS,
    cause: stop.cause,
    stopRule: stop.stoppedBy,
    breakerTripped: stop.stoppedBy !== null,
    interrupted: stop.interrupted,
    cleanupForcedSockets,
  };
}

/** The lowest count of the timeouts rules (fail-fast's `timeouts>=1` among them): the one that trips first. */
function timeoutsRule(inp: DispatchInput): { n: number; text: string } | null {
  const counts = (inp.stopRules ?? []).flatMap((r) => (r.kind === 'timeouts' ? [{ n: r.n, text: r.text }] : []));
  if (inp.failFast) counts.push({ n: 1, text: 'timeouts>=1' });
  return counts.reduce<{ n: number; text: string } | null>((a, r) => (a && a.n <= r.n ? a : r), null);
}

/** The run could not start (ready check failed): every request is unsent, ended together in one event. */
export function skippedDispatch(
  n: number,
  events: RunEvents,
  promptLen: (i: number) => number,
  why: string,
): DispatchResult {
  const records = new RequestTable(n, promptLen);
  const error = `not dispatched: ${why}`;
  records.endUnsent(0, n, error, null);
  events.unsent(0, n, error, null);
  return {
    records,
    statuses: records.statuses,
    stoppedBy: records.stoppedBy,
    timeoutKinds: records.timeoutKinds,
    durationS: 0,
    cause: null,
    stopRule: null,
    breakerTripped: false,
    interrupted: false,
    cleanupForcedSockets: 0,
  };
}
