/**
 * Cancels every request at once (the breaker's trip, an interrupt): each is
 * marked cancelled, then the dispatcher is destroyed, which fails all their
 * HTTP exchanges and closes every socket in one sweep — measurably cheaper
 * than one abort per request with 1,000 in flight. Resolves when every
 * socket is closed.
 */
export function cancelAll(
  requests: Iterable<{ cancel(reason: unknown, bulk?: boolean): void }>,
  reason: unknown,
  dispatcher: { destroy(err?: Error | null): Promise<void> },
): Promise<void> {
  for (const r of requests) r.cancel(reason, true);
  return dispatcher.destroy(reason instanceof Error ? reason : null);
}
