/**
 * After the warm-up, waits for the process's background threads to go
 * quiet before the benchmark clock starts. The warm-up makes the run's
 * paths hot, and V8 then optimises them on its own threads (and its GC
 * sweeps the warm-up's garbage concurrently). Until that is done the first
 * wave runs code not yet optimised, and on a small machine those threads
 * take the core a local target needs (docs/performance.md#settle).
 *
 * The main thread only sleeps here, so the process's CPU time over a
 * window is the background threads'. Quiet = two 10 ms windows in a row under a
 * fifth of one core; bounded, so a process with a busy worker of its own (a
 * dashboard's target, its store) waits at most `maxMs`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface SettleOptions {
  windowMs?: number;
  maxMs?: number;
  /** Process CPU time in µs (injected by a test). */
  cpuUs?: () => number;
  now?: () => number;
  /** Waits one window (injected by a test with its own clock). */
  sleep?: (ms: number) => Promise<void>;
  /** A full garbage collection first (default `fullGc`; a test injects its own). */
  gc?: () => void;
  /** The run's interrupt: no more waiting once it fires (checked each window). */
  signal?: AbortSignal;
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
  (opts.gc ?? fullGc)();
  const now = opts.now ?? ((): number => performance.now());
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const start = now();
  let quietWindows = 0;
  let c0 = cpuUs();
  let t0 = start;
  while (quietWindows < 2) {
    if (now() - start >= maxMs || opts.signal?.aborted) return { waitedMs: now() - start, quiet: false };
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

let gcFn: (() => void) | null | undefined;

/**
 * One full (mark-compact) collection, as benchmark harnesses do between
 * phases: V8's incremental marking of the heap module loading and the
 * warm-up leave would otherwise finish inside the first wave in some
 * processes (docs/performance.md#settle). Node has no API for it without
 * `--expose-gc`; the flag set at run time gives `gc` to a new context,
 * whose function collects the whole isolate. Once per warm-up, so a
 * dashboard pays it once.
 */
export function fullGc(): void {
  if (gcFn === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gcFn = runInNewContext('gc') as () => void;
    } catch {
      gcFn = null; // a runtime without it: the run starts without collecting
    }
  }
  gcFn?.();
}
