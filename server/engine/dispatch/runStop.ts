/**
 * How a run stops before its schedule ends: a stop rule tripping the breaker
 * (the fail-fast breaker's first timeout among them) or an interrupt aborts
 * the run's stop signal at once (the producer's
 * sleep and the queue give up), the unsent requests are reported
 * `not_dispatched` (unsentRequests.ts), and the requests in flight are
 * cancelled in one sweep of the run's connections (socketSweeps.ts). A
 * signal after a trip only cuts the cleanup short.
 */
import type { StoppedBy } from '../../../shared/config/stopRules.ts';
import { tripText } from '../../../shared/config/stopRules.ts';
import type { BreakerCause } from '../../../shared/types.ts';
import { Breaker, type RunTrip } from '../stopRules/breaker.ts';
import type { RunEvents } from '../records/events.ts';
import { cancelAll, CancelledError, type Sweeper, type Cancellation } from '../transport/index.ts';
import { SocketSweeps } from './socketSweeps.ts';
import { reportUnsent } from './unsentRequests.ts';

interface RunStopInput {
  /** The timeouts rule (`timeouts>=N`, fail-fast's `timeouts>=1`), or null. */
  timeouts: { n: number; text: string } | null;
  /** Closes every connection of the run (RunConnections). */
  connections: Sweeper;
  events: RunEvents;
  log?: (line: string) => void;
  lastPhaseOf?: (requestId: string) => string | null | undefined;
  interrupt?: AbortSignal;
  /** The requests in flight, by index: cancelled together when the run stops. */
  inFlight: ReadonlyMap<number, Cancellation>;
  /** Requests waiting for a slot now, and where the unsent ones begin (the slot queue's). */
  queue: { readonly queued: number; readonly started: number };
  /** Ends requests [from, end of the run) as unsent, together. */
  unsentFrom: (from: number) => void;
}

export class RunStop {
  readonly breaker: Breaker;
  private readonly sweeps = new SocketSweeps();
  private unsent: Promise<void> | null = null;
  private interruptedFirst = false;
  /**
   * The counts `breaker.tripped` reports, read when the first timeout stops the run: by the
   * time the cause is chosen (one setImmediate later) the queue is already empty and the
   * timed-out requests have settled, so reading them in onTrip would say 0.
   */
  private atTrip = { inFlight: 0, queued: 0 };

  constructor(
    /** The run's stop: aborted by the breaker's first timeout or an interrupt. */
    private readonly stop: AbortController,
    private readonly o: RunStopInput,
  ) {
    this.breaker = new Breaker({
      timeouts: o.timeouts,
      onTrip: (trip) => this.onTrip(trip),
      atS: () => o.events.nowT() / 1000,
      lastPhaseOf: o.lastPhaseOf,
    });
    // Every request not started when the run stops (queued, or not arrived yet) is unsent.
    stop.signal.addEventListener(
      'abort',
      () => {
        this.unsent = reportUnsent(() => o.queue.started, o.unsentFrom); // awaited by settled()
      },
      { once: true },
    );
    this.breaker.stopSignal.addEventListener('abort', this.onBreakerStop, { once: true });
  }

  /** Stopped by an interrupt before any trip (a signal after a trip leaves the run failed_closed). */
  get interrupted(): boolean {
    return this.interruptedFirst;
  }

  get cause(): BreakerCause | null {
    return this.breaker.cause;
  }

  /** The stop rule that stopped the run, or null. */
  get stoppedBy(): StoppedBy | null {
    return this.breaker.stoppedBy;
  }

  /** Listens for the interrupt from now on; one already fired stops the run at once. */
  listen(): void {
    if (this.o.interrupt?.aborted) this.onInterrupt();
    else this.o.interrupt?.addEventListener('abort', this.onInterrupt, { once: true });
  }

  /**
   * Once every request task settled: waits for the unsent reports, the
   * breaker's decision and every sweep (a trip decided after the last task
   * settled may have started one more). Returns the sockets the sweeps had
   * to destroy one by one.
   */
  async settled(): Promise<number> {
    await this.unsent;
    await this.breaker.settled();
    return this.sweeps.settled(this.o.events, this.o.log);
  }

  /** Stops listening (the run is over). */
  detach(): void {
    this.breaker.stopSignal.removeEventListener('abort', this.onBreakerStop);
    this.o.interrupt?.removeEventListener('abort', this.onInterrupt);
  }

  private onTrip({ cause, stoppedBy }: RunTrip): void {
    const { inFlight, queued } = this.atTrip;
    const counts = `(${inFlight} in flight, ${queued} queued)`;
    if (cause) {
      this.o.log?.(
        `Fail-fast: request ${cause.requestIndex} hit its ${cause.kind} timeout after ${cause.elapsedS.toFixed(3)} s` +
          `${stoppedBy.value > 1 ? ` (${stoppedBy.rule})` : ''}; stopping the run ${counts}`,
      );
      this.o.events.emit({ type: 'breaker.tripped', cause, ...this.atTrip });
    } else this.o.log?.(`Stop rule: ${tripText(stoppedBy)}; stopping the run ${counts}`);
    this.o.events.emit({ type: 'run.stopped', stoppedBy, ...this.atTrip });
    const reason = this.breaker.stopSignal.reason as CancelledError;
    this.sweeps.add(cancelAll(this.o.inFlight.values(), reason, this.o.connections));
  }

  private readonly onBreakerStop = (): void => {
    this.atTrip = { inFlight: this.o.inFlight.size, queued: this.o.queue.queued }; // before `stop` empties the queue
    this.stop.abort(this.breaker.stopSignal.reason);
  };

  private readonly onInterrupt = (): void => {
    if (this.stop.signal.aborted) {
      // Already stopping (the breaker tripped): the interrupt only cuts the cleanup short.
      this.o.connections.hurry();
      return;
    }
    this.interruptedFirst = true;
    const reason = new CancelledError('interrupted');
    this.stop.abort(reason);
    this.sweeps.add(cancelAll(this.o.inFlight.values(), reason, this.o.connections));
  };
}
