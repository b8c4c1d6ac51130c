/**
 * The engine's domain events (shared/protocol/protocol.ts), stamped with `t` = ms
 * since the benchmark clock started. A subscriber that throws never breaks
 * the run. `request.progress` is throttled per request.
 */
import type { BenchEvent, RequestOutcome } from '../../../shared/protocol/protocol.ts';
import type { StopCause } from '../../../shared/types.ts';

export type Unstamped = BenchEvent extends infer E ? (E extends BenchEvent ? Omit<E, 't'> : never) : never;

export const PROGRESS_INTERVAL_MS = 250;

export class RunEvents {
  private t0 = performance.now();
  private readonly lastProgress = new Map<number, number>();

  constructor(
    private readonly onEvent: ((e: BenchEvent) => void) | undefined,
    private readonly log?: (line: string) => void,
  ) {}

  /** Restart the clock (the benchmark clock starts after ready check and warmups). */
  startClock(): void {
    this.t0 = performance.now();
  }

  /** Monotonic ms (performance.now) of t = 0. */
  get originMs(): number {
    return this.t0;
  }

  nowT(): number {
    return performance.now() - this.t0;
  }

  emit(e: Unstamped): void {
    if (this.onEvent) this.send({ ...e, t: this.nowT() });
  }

  private send(e: BenchEvent): void {
    try {
      this.onEvent?.(e);
    } catch (err) {
      this.log?.(`event subscriber failed on ${e.type}: ${(err as Error).message}`);
    }
  }

  /** Emits request.progress at most every PROGRESS_INTERVAL_MS per request. */
  progress(index: number, outputTokens: number, audioS: number): void {
    if (!this.onEvent) return;
    const now = performance.now();
    const last = this.lastProgress.get(index);
    if (last !== undefined && now - last < PROGRESS_INTERVAL_MS) return;
    this.lastProgress.set(index, now);
    this.send({ type: 'request.progress', index, outputTokens, audioS, t: now - this.t0 });
  }

  /** A request arrived and waits for a slot (a rate-inf run queues all of them at once). */
  queued(index: number, requestId: string): void {
    if (this.onEvent) this.send({ type: 'request.queued', index, requestId, t: this.nowT() });
  }

  /** Requests [from, to) were unsent, for one reason: one event for all of them. */
  unsent(from: number, to: number, error: string, stoppedBy: StopCause | null): void {
    if (!this.onEvent) return;
    const e: BenchEvent = { type: 'requests.unsent', from, to, error, t: this.nowT() };
    if (stoppedBy) e.stoppedBy = stoppedBy;
    this.send(e);
  }

  /**
   * Ends a request's life in the event stream. The per-request events are
   * stamped here, not copied by `emit`: a spread costs more than the rest of
   * the event, and a stopped run reports a million unsent requests.
   */
  end(outcome: RequestOutcome, kind?: 'total' | 'first_byte' | 'idle'): void {
    this.lastProgress.delete(outcome.index);
    if (!this.onEvent) return;
    const t = this.nowT();
    switch (outcome.status) {
      case 'completed':
        return this.send({ type: 'request.completed', outcome, t });
      case 'failed':
        return this.send({ type: 'request.failed', outcome, t });
      case 'timed_out':
        return this.send({ type: 'request.timed_out', kind: kind ?? 'total', outcome, t });
      case 'cancelled_after_timeout':
      case 'cancelled':
        return this.send({ type: 'request.cancelled', outcome, t });
      case 'not_dispatched':
        return this.send({ type: 'request.unsent', outcome, t });
    }
  }
}
