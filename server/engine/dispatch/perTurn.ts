/**
 * Requests handled per turn of the event loop when many are due at once:
 * arrivals of a rate-inf run, and the unsent requests a stopped run
 * reports. A million of them must not hold the loop: the first requests run
 * meanwhile, and a signal (or the dashboard's shutdown deadline, a timer) is
 * heard in time.
 */
export const PER_TURN = 4096;

/** Resolves in the next turn of the event loop, after its I/O. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((r) => setImmediate(r));
}
