/**
 * A FIFO counting semaphore whose waiters can be cancelled together (the
 * breaker empties the queue at once) or one by one through an AbortSignal.
 */
export class Semaphore {
  private available: number;
  private readonly waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];

  /** `limit` null means unbounded: acquire never waits. */
  constructor(limit: number | null) {
    this.available = limit ?? Number.POSITIVE_INFINITY;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves when a slot is held; rejects with `signal.reason` if aborted first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.available > 0 && this.waiters.length === 0) {
      this.available--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (e: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Hands the slot to the oldest waiter, or returns it to the pool. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next.resolve();
    else this.available++;
  }

  /** Rejects every waiter with `reason` (they never get a slot). */
  rejectAll(reason: unknown): void {
    const all = this.waiters.splice(0);
    for (const w of all) w.reject(reason);
  }
}
