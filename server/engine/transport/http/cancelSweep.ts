/**
 * Stack capture is switched off around the synchronous abort/destroy bursts
 * of a bulk stop: an error built there (a timer's TimeoutError, the sweep's
 * own reason when it has none, Node's for a socket it fails) would otherwise
 * capture a stack nobody reads, and Node's stream destroy formats it at once
 * (docs/performance.md#stacks). The run's own client passes the cancel reason
 * through and builds none, so this is now a bound rather than a saving.
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

/** What closes a run's connections (RunConnections in dispatcher.ts). */
export interface Sweeper {
  sweep(reason: Error | null): Promise<{ forcedSockets: number }>;
  /** A signal during the cleanup: end it now. */
  hurry(): void;
}

/**
 * Cancels every request at once (the breaker's trip, an interrupt): each is
 * marked cancelled (its attempt keeps a timer that bounds it), then every
 * connection of the run is closed in one sweep — measurably cheaper than one
 * abort per request with 1,000 in flight. Resolves when every socket is
 * closed, with how many needed the per-socket fallback.
 */
export function cancelAll(
  requests: Iterable<{ cancel(reason: unknown, bulk?: boolean): void }>,
  reason: unknown,
  connections: Sweeper,
): Promise<{ forcedSockets: number }> {
  return withoutStacks(() => {
    for (const r of requests) r.cancel(reason, true);
    return connections.sweep(reason instanceof Error ? reason : null);
  });
}
