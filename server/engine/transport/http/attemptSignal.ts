/**
 * The abort signal of one HTTP attempt: its structural timers and the
 * request's cancellation abort it; its exchange (exchange.ts) listens, to
 * abort the request on its connection (h1/socketExchange.ts). Lighter than an AbortController, whose
 * EventTarget bookkeeping was a noticeable share of the client's budget (docs/performance.md#attempt-signal).
 */
type Listener = () => void;

export class AttemptSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Listener[] = [];

  /** Runs `fn` once when the attempt is aborted (not when it is only marked cancelled). */
  onAbort(fn: Listener): void {
    this.listeners.push(fn);
  }

  /**
   * Marks the attempt cancelled without aborting its request: used when the
   * whole dispatcher is destroyed at once (the breaker's trip, an interrupt),
   * which fails every request in one sweep; the attempt then reads `reason`
   * to classify its failure. Its own timers no longer fire afterwards.
   */
  markCancelled(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
  }

  /** First reason wins; listeners run once, synchronously, in order. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const ls = this.listeners;
    this.listeners = [];
    for (const fn of ls) fn();
  }
}
