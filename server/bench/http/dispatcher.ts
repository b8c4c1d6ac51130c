/**
 * The connections of one run (docs/design.md section 4a). The run owns
 * every socket it opens: one undici `Pool` for the target's origin, whose
 * `factory` hands us every `Client` it creates and whose `connect` hook
 * registers every socket the moment it connects — so the sweep finds them
 * without relying on any library's internal bookkeeping (undici's `Agent`
 * forgets a pool whose connected-socket count touches 0, and requests queued
 * on it then escape `Agent.destroy()`: the hang this module exists to end).
 *
 * `per_request` (the default, as vLLM-Omni's `force_close=True`): each
 * request asks for its connection to be closed after the response, so every
 * request opens a new TCP connection and its TTFT includes the connect.
 * `keep_alive` reuses connections (at most one per concurrency slot).
 *
 * undici's own headers/body/connect timeouts are disabled (0): they default
 * to 300 s / 300 s / 10 s and would otherwise classify a stall before our
 * structural timers do.
 */
import type { Socket } from 'node:net';
import { buildConnector, Client, Pool } from 'undici';
import type { ConnectionMode } from '../../../shared/types.ts';
import { withoutStacks } from './cancelSweep.ts';

/** How long the sweep waits for the pool to close everything before destroying sockets one by one. */
export const CLEANUP_DEADLINE_MS = 500;
/** After the per-socket fallback, how long to wait for the last `close` events. */
const FALLBACK_GRACE_MS = 100;

export interface ConnectionOptions {
  maxConcurrency: number | null;
  mode: ConnectionMode;
  /** Extra options for the socket connector (TLS settings). */
  connect?: buildConnector.BuildOptions;
  /** Test hook: the sweep skips the pool's own destroy (proves the fallback alone ends a run). */
  skipPoolDestroy?: boolean;
}

export interface SweepResult {
  /** Sockets still open at the deadline, destroyed one by one. Expected 0. */
  forcedSockets: number;
}

export class RunConnections {
  readonly pool: Pool;
  readonly mode: ConnectionMode;
  private readonly sockets = new Set<Socket>();
  private readonly clients = new Set<Client>();
  /** Sockets opened over the run (a loopback test counts them against the server's view). */
  opened = 0;
  private sweeping: Promise<SweepResult> | null = null;
  private hurryFn: (() => void) | null = null;
  private hurried = false;

  constructor(
    origin: string,
    private readonly opts: ConnectionOptions,
  ) {
    this.mode = opts.mode;
    const connector = buildConnector({ ...(opts.connect ?? {}), timeout: 0 });
    const register = (socket: Socket): void => {
      this.opened++;
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    };
    this.pool = new Pool(origin, {
      connections: opts.maxConcurrency ?? null,
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      pipelining: 1,
      connect: (options, callback) =>
        connector(options, (err, socket) => {
          if (socket) register(socket);
          (callback as (e: Error | null, s: unknown) => void)(err, socket);
        }),
      factory: (o, options) => {
        const client = new Client(o, options);
        this.clients.add(client);
        return client;
      },
    });
  }

  /** True when each request must close its connection after the response. */
  get perRequest(): boolean {
    return this.mode === 'per_request';
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  /**
   * Closes every connection of the run, at once: the pool and every client
   * it ever created are destroyed (failing their requests with `reason`);
   * whatever socket is still open after CLEANUP_DEADLINE_MS (or at once
   * after `hurry()`) is destroyed one by one and counted. Idempotent: a
   * second call returns the first sweep.
   */
  sweep(reason: Error | null): Promise<SweepResult> {
    this.sweeping ??= this.runSweep(reason);
    return this.sweeping;
  }

  /** A signal during the cleanup: skip the rest of the deadline. */
  hurry(): void {
    this.hurried = true;
    this.hurryFn?.();
  }

  private async runSweep(reason: Error | null): Promise<SweepResult> {
    const closing = this.opts.skipPoolDestroy
      ? new Promise<void>(() => undefined) // the test hook: nothing closes, the deadline must end it
      : withoutStacks(() => {
          const all: Promise<void>[] = [this.pool.destroy(reason).catch(() => undefined)];
          for (const c of this.clients) all.push(c.destroy(reason).catch(() => undefined));
          return Promise.all(all);
        });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      this.hurryFn = resolve;
      if (this.hurried) resolve();
      timer = setTimeout(resolve, CLEANUP_DEADLINE_MS);
    });
    await Promise.race([closing, deadline]);
    clearTimeout(timer);
    this.hurryFn = null;
    // Sockets already destroyed emit `close` shortly; only those nobody destroyed need the fallback.
    const left = [...this.sockets];
    if (left.length === 0) return { forcedSockets: 0 };
    const forced = left.filter((s) => !s.destroyed);
    const closed = Promise.all(left.map((s) => new Promise<void>((r) => s.once('close', () => r()))));
    withoutStacks(() => {
      for (const s of forced) s.destroy(reason ?? undefined);
    });
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((r) => (grace = setTimeout(r, FALLBACK_GRACE_MS)))]);
    clearTimeout(grace);
    return { forcedSockets: forced.length };
  }
}
