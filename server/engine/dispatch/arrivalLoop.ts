/**
 * The producer of a run: walks the arrival schedule and hands each request
 * on (to the slot queue) when its offset from the clock start is reached.
 * Its sleep is abortable, so the run's stop ends it at once; a request due
 * when the run stopped never arrives.
 */
import { nextTurn, PER_TURN } from './perTurn.ts';

/**
 * Resolves once every request arrived or the run stopped. `t0` is the run
 * clock's origin (performance.now() ms); `offsets` are seconds from it.
 */
export async function runArrivals(
  offsets: readonly number[],
  t0: number,
  stop: AbortSignal,
  arrive: (index: number) => void,
): Promise<void> {
  const n = offsets.length;
  let sinceYield = 0;
  for (let next = 0; next < n; next++) {
    if (stop.aborted) break;
    try {
      // A loop because one setTimeout cannot wait more than ~24.8 days.
      for (
        let waitMs = t0 + offsets[next] * 1000 - performance.now();
        waitMs > 0;
        waitMs = t0 + offsets[next] * 1000 - performance.now()
      ) {
        await abortableSleep(waitMs, stop);
        sinceYield = 0;
      }
    } catch {
      break;
    }
    // Arrivals due at once (rate inf) are taken PER_TURN per turn of the event loop.
    if (++sinceYield >= PER_TURN) {
      sinceYield = 0;
      await nextTurn();
    }
    if (stop.aborted) break; // stopped while this arrival was due: it never arrives
    arrive(next);
  }
}

/** setTimeout that clears itself when `signal` aborts (no timer left behind). */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, 2_147_483_647),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
