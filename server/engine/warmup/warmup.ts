/**
 * Before the clock starts: the optional ready check (re-send the first
 * request until it succeeds or the deadline passes, so an unreachable
 * target is reported as `errored`, never as a hang) and the warmups (the
 * first request N times, concurrently under the run's concurrency limit,
 * with their own ids, untimed and uncounted).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Cancellation, type AttemptTarget } from '../transport/index.ts';
import { runRequest, type RequestJob } from '../dispatch/requestRunner.ts';
import { Semaphore } from './semaphore.ts';

export const READY_RETRY_INTERVAL_MS = 500;

/** Returns null when ready, else the last error seen. */
export async function readyCheck(
  target: AttemptTarget,
  timeoutS: number,
  job: (attempt: number) => Promise<RequestJob>,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<string | null> {
  const deadline = performance.now() + timeoutS * 1000;
  let lastError = 'no attempt made';
  for (let attempt = 1; ; attempt++) {
    const remainingS = (deadline - performance.now()) / 1000;
    if (remainingS <= 0 || signal.aborted) break;
    // Each try is bounded by what is left of the ready-check budget.
    const clipped = remainingS < target.limits.totalS;
    const limits = { ...target.limits, totalS: Math.min(target.limits.totalS, remainingS) };
    const { cancellation, dispose } = Cancellation.following(signal);
    const end = await runRequest({ ...target, limits }, await job(attempt), cancellation, {}).finally(dispose);
    if (end.status === 'completed') return null;
    // A try cut short by the check's own deadline tells nothing new about the target: the
    // error reported stays the last real one (a refused certificate, a 503).
    if (!(clipped && end.status === 'timed_out' && attempt > 1)) lastError = end.record.error || end.status;
    log(`ready check attempt ${attempt} failed: ${lastError}`);
    const wait = Math.min(READY_RETRY_INTERVAL_MS, deadline - performance.now());
    if (wait <= 0) break;
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      break;
    }
  }
  return `endpoint not ready after ${timeoutS} s: ${lastError}`;
}

/**
 * Runs the warmups; returns how many completed. One listener on `signal`
 * stops them all (empties the queue, cancels those in flight) rather than
 * one per warmup: the caller's signal outlives the run, and dozens of
 * listeners on it draw Node's MaxListenersExceededWarning.
 */
export async function runWarmups(
  target: AttemptTarget,
  count: number,
  maxConcurrency: number | null,
  job: (i: number) => Promise<RequestJob>,
  signal: AbortSignal,
): Promise<number> {
  if (signal.aborted) return 0;
  const sem = new Semaphore(maxConcurrency);
  const live = new Set<Cancellation>();
  const onAbort = (): void => {
    sem.rejectAll(signal.reason as Error);
    for (const c of live) c.cancel(signal.reason);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  let ok = 0;
  try {
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        try {
          await sem.acquire();
        } catch {
          return;
        }
        const cancellation = new Cancellation();
        live.add(cancellation);
        try {
          if (signal.aborted) return;
          const end = await runRequest(target, await job(i), cancellation, {});
          if (end.status === 'completed') ok++;
        } finally {
          live.delete(cancellation);
          sem.release();
        }
      }),
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return ok;
}
