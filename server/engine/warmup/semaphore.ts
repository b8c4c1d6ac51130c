/**
 * A FIFO counting semaphore whose waiters can be cancelled together (the
 * breaker empties the queue at once) or one by one through an AbortSignal.
 */
type Waiter = { resolve: () => void; reject: (e: Error) => void };

export class Semaphore {
  private available: number;
  // A queue with a head index: Array#shift is O(n) on long arrays, and a
  // rate-inf run queues every request at once (1,088 in the CI incident).
  private waiters: Array<Waiter | null> = [];
  private head = 0;

  /** `limit` null means unbounded: acquire never waits. */
  constructor(limit: number | null) {
    this.available = limit ?? Number.POSITIVE_INFINITY;
  }

  get waiting(): number {
    let n = 0;
    for (let i = this.head; i < this.waiters.length; i++) if (this.waiters[i]) n++;
    return n;
  }

  /** Resolves when a slot is held; rejects with `signal.reason` if aborted first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.available > 0 && this.head === this.waiters.length) {
      this.available--;
      return Promise.resolve();
    }
    if (!signal) {
      // The hot path (every queued request of a run): no per-waiter closures.
      return new Promise<void>((resolve, reject) => void this.waiters.push({ resolve, reject }));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (e: Error) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter, this.head);
        if (i >= 0) this.waiters[i] = null; // a hole; skipped by release()
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Hands the slot to the oldest waiter, or returns it to the pool. */
  release(): void {
    while (this.head < this.waiters.length) {
      const next = this.waiters[this.head];
      this.waiters[this.head++] = null;
      if (next) {
        this.compact();
        return next.resolve();
      }
    }
    this.compact();
    this.available++;
  }

  /** Rejects every waiter with `reason` (they never get a slot). */
  rejectAll(reason: Error): void {
    const all = this.waiters.slice(this.head);
    this.waiters = [];
    this.head = 0;
    for (const w of all) w?.reject(reason);
  }

  private compact(): void {
    if (this.head === this.waiters.length) {
      this.waiters = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
  }
}
