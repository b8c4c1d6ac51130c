/**
 * Warms the client before the benchmark clock starts, sending nothing to the
 * target. In a fresh process the first requests pay for module
 * initialisation, lazy compilation, the HTTP client's first sockets and
 * the first JSON and WAV parses, which put the client's start-up into the
 * first wave's TTFT and a short run's p99 (docs/performance.md#client-warm-up). So the run's own code paths (request building, the
 * dispatch loop and slots, the run's connections, TLS for an https target, SSE exchange, structural timers,
 * stream parsing with text and audio, the event emitter) are run in-process
 * against a loopback server of our own that streams a recorded response
 * (loopbackServer.ts: plain sockets, not Node's HTTP server, whose code the
 * run never uses).
 * Best effort: bounded in time, never fails the run; every socket, server
 * and timer it opens is closed before it returns. Runs once per process (a
 * dashboard's later runs find the paths warm).
 */
import { RunConnections, loopbackServer, type AttemptTarget, type LoopbackServer } from '../transport/index.ts';
import { runDispatch } from '../dispatch/dispatch.ts';
import { RunEvents } from '../records/events.ts';
import type { RequestJob } from '../dispatch/requestRunner.ts';
import { recordedStream } from './recordedStream.ts';
import { fullGc } from './settle.ts';

export interface WarmOptions {
  /** Builds warm-up request i (the run's first request under its own id): the body builder warms too. */
  job: (i: number) => Promise<RequestJob>;
  /**
   * The run's target. The warm-up's is a copy with only the dispatcher, origin and path replaced (and no
   * audio spool): an object of the same shape, so the code V8 optimised for it is the code the run uses.
   */
  target: AttemptTarget;
  /** The run's limit: the warm-up's connections are made as the run's are (same pool size, same mode). */
  maxConcurrency: number | null;
  /** Requests of the first pass, at most 8 at once (see FIRST_PASS_REQUESTS). */
  requests?: number;
  /** Whole warm-up bound; what is unfinished then is cancelled. */
  deadlineMs?: number;
  /** The run's interrupt: a signal during the warm-up ends it at once (the run then stops as usual). */
  signal?: AbortSignal;
}

/** Once per process: after one warm-up (or one run) the paths stay compiled for the next run. */
let warmed = false;

/** Resolves true when it warmed (the first run of the process), false when the paths were warm already or it could not. */
export async function warmClient(opts: WarmOptions): Promise<boolean> {
  if (warmed) return false;
  warmed = true;
  // An https target: the warm-up serves https too, so the TLS path is warm (its certificate is not checked).
  const tls = new URL(opts.target.origin).protocol === 'https:';
  let served: LoopbackServer;
  try {
    served = await loopbackServer(recordedStream(), tls);
  } catch {
    return false; // its own server could not start (a listen failing, a TLS setup refused): the run goes on cold
  }
  const { server, sockets } = served;
  const n = opts.requests ?? FIRST_PASS_REQUESTS;
  const concurrency = Math.min(opts.maxConcurrency ?? 8, 8);
  const stop = new AbortController();
  const deadline = setTimeout(() => stop.abort(new Error('client warm-up deadline')), opts.deadlineMs ?? 3_000);
  const onInterrupt = (): void => stop.abort(new Error('interrupted during the client warm-up'));
  if (opts.signal?.aborted) onInterrupt();
  else opts.signal?.addEventListener('abort', onInterrupt, { once: true });
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    await warmPass(opts, origin, tls, n, concurrency, stop.signal);
    // The full collection before the clock (settle.ts) drops optimised code that held objects of this
    // warm-up (V8 deoptimises it, "weak objects": the prompt writer, the stream parser, a dozen more), so
    // the first wave ran them unoptimised again: collected here, then a short second pass re-optimises
    // them, and the settle that follows waits for those compilations (docs/design.md#first-wave).
    if (!stop.signal.aborted) {
      fullGc();
      await warmPass(opts, origin, tls, REWARM_REQUESTS, concurrency, stop.signal);
    }
  } catch {
    // Best effort: a warm-up that failed leaves the run as it would have been without it.
  } finally {
    clearTimeout(deadline);
    opts.signal?.removeEventListener('abort', onInterrupt);
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return true;
}

/**
 * Requests of the two passes: each costs CPU a run never gets back, and fewer than these left more of the start-up
 * in the first wave (docs/performance.md#client-warm-up).
 */
const FIRST_PASS_REQUESTS = 24;
const REWARM_REQUESTS = 16;

/** One pass: `n` requests through the run's own dispatch against the loopback server, every socket closed after. */
async function warmPass(
  opts: WarmOptions,
  origin: string,
  tls: boolean,
  n: number,
  concurrency: number,
  signal: AbortSignal,
): Promise<void> {
  const connections = new RunConnections(origin, {
    maxConcurrency: opts.maxConcurrency,
    mode: opts.target.perRequest ? 'per_request' : 'keep_alive',
    connect: tls ? { rejectUnauthorized: false } : undefined,
    now: opts.target.now,
  });
  try {
    // A subscriber that does nothing: RunEvents skips its work when there is none.
    const events = new RunEvents(() => undefined);
    events.startClock();
    await runDispatch({
      target: {
        ...opts.target,
        audioSpool: undefined,
        // None shared: each warm-up stream learns its chunks' shapes (a parse, a check parse, the shape made), as
        // the run's first stream will with the run's shapes still empty; shared, the warm-up learnt twice a pass
        // and left that path cold. (The loopback stream's shapes, model "warm", never reach the run's.)
        chunkShapes: undefined,
        dispatcher: connections,
        origin,
        path: '/v1/chat/completions',
      },
      connections,
      events,
      offsets: new Array<number>(n).fill(0),
      maxConcurrency: concurrency,
      failFast: false,
      prepare: opts.job,
      requestId: (i) => `warm-${i}`,
      promptLen: () => 0,
      interrupt: signal,
    });
  } finally {
    await connections.sweep(null);
  }
}
