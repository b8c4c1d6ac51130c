/**
 * Aborting a request makes undici destroy its socket with a fresh internal
 * error, and Node's stream destroy formats that error's stack at once. With
 * source maps enabled (tsx), formatting costs ~0.1–0.3 ms per error (and
 * the first one loads the maps) — for 1,000 in-flight requests, a third of
 * a second spent building stack strings nobody reads. So stack capture is
 * switched off around these synchronous abort/destroy bursts only.
 */
export function withoutStacks<T>(fn: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return fn();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Cancels many requests at once (the breaker's trip, an interrupt). */
export function abortAll(requests: Iterable<{ cancel(reason: unknown): void }>, reason: unknown): void {
  withoutStacks(() => {
    for (const r of requests) r.cancel(reason);
  });
}
