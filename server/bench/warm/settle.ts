/**
 * After the warm-up, waits for the process's background threads to go
 * quiet before the benchmark clock starts. The warm-up makes the run's
 * paths hot, and V8 then optimises them on its own threads (and its GC
 * sweeps the warm-up's garbage concurrently): measured here, one core busy
 * for 20–40 ms after the warm-up. Until that is done the first wave runs
 * code not yet optimised, and on a small machine those threads take the
 * core a local target needs: concurrency 64 keep-alive, first wave minus
 * steady state 16–19 ms without waiting, 5–7 ms after; concurrency 10, 5.2–6.5 ms
 * without, 1.9–2.5 ms after (issue 11).
 *
 * The main thread only sleeps here, so the process's CPU time over a
 * window is the background threads'. Quiet = two 10 ms windows in a row under a
 * fifth of one core; bounded, so a process with a busy worker of its own (a
 * dashboard's target, its store) waits at most `maxMs`.
 */
export interface SettleOptions {
  windowMs?: number;
  maxMs?: number;
  /** Process CPU time in µs (injected by a test). */
  cpuUs?: () => number;
  now?: () => number;
  /** Waits one window (injected by a test with its own clock). */
  sleep?: (ms: number) => Promise<void>;
}

export interface Settled {
  waitedMs: number;
  quiet: boolean;
}

export async function settleBackground(opts: SettleOptions = {}): Promise<Settled> {
  const windowMs = opts.windowMs ?? 10;
  const maxMs = opts.maxMs ?? 300;
  const cpuUs =
    opts.cpuUs ??
    ((): number => {
      const u = process.cpuUsage();
      return u.user + u.system;
    });
  const now = opts.now ?? ((): number => performance.now());
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const start = now();
  let quietWindows = 0;
  let c0 = cpuUs();
  let t0 = start;
  while (quietWindows < 2) {
    if (now() - start >= maxMs) return { waitedMs: now() - start, quiet: false };
    await sleep(windowMs);
    const c1 = cpuUs();
    const t1 = now();
    // µs of CPU per ms of wall: 1000 is one whole core.
    quietWindows = (c1 - c0) / (t1 - t0) < 200 ? quietWindows + 1 : 0;
    c0 = c1;
    t0 = t1;
  }
  return { waitedMs: now() - start, quiet: true };
}
