/**
 * The abort signal of one HTTP attempt, handed to undici. undici accepts any
 * object with `on`/`once`/`removeListener`, `aborted` and `reason`; this one
 * costs a fraction of an AbortController (which, with its EventTarget and
 * listener bookkeeping, measured ~10 µs per request — per request, that is
 * a noticeable share of the client's budget at thousands of requests/s).
 */
type Listener = () => void;

export class AttemptSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Listener[] = [];

  on(event: string, fn: Listener): this {
    if (event === 'abort') this.listeners.push(fn);
    return this;
  }

  once(event: string, fn: Listener): this {
    return this.on(event, fn);
  }

  addListener(event: string, fn: Listener): this {
    return this.on(event, fn);
  }

  removeListener(event: string, fn: Listener): this {
    if (event === 'abort') {
      const i = this.listeners.indexOf(fn);
      if (i >= 0) this.listeners.splice(i, 1);
    }
    return this;
  }

  off(event: string, fn: Listener): this {
    return this.removeListener(event, fn);
  }

  /**
   * Marks the attempt cancelled without telling undici: used when the whole
   * dispatcher is destroyed at once (the breaker's trip, an interrupt), which
   * fails every request in one sweep; the attempt then reads `reason` to
   * classify its failure. Its own timers no longer fire afterwards.
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
