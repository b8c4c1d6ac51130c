/**
 * The engine's domain events (shared/protocol.ts), stamped with `t` = ms
 * since the benchmark clock started. A subscriber that throws never breaks
 * the run. `request.progress` is throttled per request.
 */
import type { BenchEvent, RequestOutcome } from '../../shared/protocol.ts';

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
    if (!this.onEvent) return;
    try {
      this.onEvent({ ...e, t: this.nowT() });
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
    this.emit({ type: 'request.progress', index, outputTokens, audioS });
  }

  /** Ends a request's life in the event stream. */
  end(outcome: RequestOutcome, kind?: 'total' | 'first_byte' | 'idle'): void {
    this.lastProgress.delete(outcome.index);
    switch (outcome.status) {
      case 'completed':
        return this.emit({ type: 'request.completed', outcome });
      case 'failed':
        return this.emit({ type: 'request.failed', outcome });
      case 'timed_out':
        return this.emit({ type: 'request.timed_out', kind: kind ?? 'total', outcome });
      case 'cancelled_after_timeout':
      case 'cancelled':
        return this.emit({ type: 'request.cancelled', outcome });
      case 'not_dispatched':
        return this.emit({ type: 'request.not_dispatched', outcome });
    }
  }
}
