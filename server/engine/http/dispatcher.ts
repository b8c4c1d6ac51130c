/**
 * The connections of one run (docs/design.md#connections). The run owns
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
 * `preconnect` (keep_alive, a burst start) opens the first wave's
 * connections before the clock, as wrk does: later waves reuse theirs, so
 * handshakes queued at the server at once would be in the first wave's TTFT
 * only, a cost no later wave pays. Every such socket is the run's like any other.
 *
 * undici's own headers/body/connect timeouts are disabled (0): they default
 * to 300 s / 300 s / 10 s and would otherwise classify a stall before our
 * structural timers do.
 */
import { Socket } from 'node:net';
import { buildConnector, Client, Pool } from 'undici';
import type { ConnectionMode } from '../../../shared/types.ts';
import { withoutStacks } from './cancelSweep.ts';

/** How long the sweep waits for the pool to close everything before destroying sockets one by one. */
export const CLEANUP_DEADLINE_MS = 500;
/** After the per-socket fallback, how long to wait for the last `close` events. */
const FALLBACK_GRACE_MS = 100;
/** How long `preconnect` waits for its connections; the run then starts and connects the rest itself. */
export const PRECONNECT_DEADLINE_MS = 1_000;
/**
 * A spare connection older than this is closed rather than used: servers close idle connections
 * (uvicorn and Node after 5 s), and a request sent on one being closed would fail.
 */
const SPARE_MAX_AGE_MS = 2_000;

export interface ConnectionOptions {
  maxConcurrency: number | null;
  mode: ConnectionMode;
  /** Extra options for the socket connector (TLS settings). */
  connect?: buildConnector.BuildOptions;
  /** Test hook: the sweep skips the pool's own destroy (proves the fallback alone ends a run). */
  skipPoolDestroy?: boolean;
  /** Test hook: a preconnected spare older than this is closed rather than used (default SPARE_MAX_AGE_MS). */
  spareMaxAgeMs?: number;
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
  /** Connected sockets `preconnect` opened that no request has used yet, oldest first. */
  private readonly spares: { socket: Socket; at: number }[] = [];
  /** Sockets still connecting (TCP or TLS handshake): no client owns them yet, so no destroy reaches them. */
  private readonly connecting = new Set<Socket>();
  private readonly connector: buildConnector.connector;
  private readonly origin: URL;
  private hurryFn: (() => void) | null = null;
  private hurried = false;

  constructor(
    origin: string,
    private readonly opts: ConnectionOptions,
  ) {
    this.mode = opts.mode;
    this.origin = new URL(origin);
    const connector = buildConnector({ ...(opts.connect ?? {}), timeout: 0 });
    this.connector = (options, callback) => {
      // buildConnector returns the socket it is connecting (its typings say void). Kept until it
      // connects: with the connect timeout off, a handshake the target never answers (its loop
      // stuck; the kernel still accepts the TCP connection) would otherwise outlive the run, as
      // undici's destroy does not reach a connect in progress.
      const pending: unknown = connector(options, (err, socket) => {
        if (pending instanceof Socket) this.connecting.delete(pending);
        if (socket) this.register(socket);
        (callback as (e: Error | null, s: unknown) => void)(err, socket);
      });
      if (!(pending instanceof Socket) || pending.destroyed) return;
      if (this.sweeping) return void pending.destroy(); // a connect after the run stopped
      this.connecting.add(pending);
      pending.once('close', () => this.connecting.delete(pending));
    };
    this.pool = new Pool(origin, {
      connections: opts.maxConcurrency ?? null,
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      pipelining: 1,
      connect: (options, callback) => {
        const spare = this.takeSpare();
        // Called back asynchronously, as a real connect is.
        if (spare) queueMicrotask(() => (callback as (e: null, s: Socket) => void)(null, spare));
        else this.connector(options, callback);
      },
      factory: (o, options) => {
        const client = new Client(o, options);
        this.clients.add(client);
        return client;
      },
    });
  }

  private register(socket: Socket): void {
    this.opened++;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    if (this.sweeping) socket.destroy(); // connected after the run stopped (a late preconnect)
  }

  /**
   * keep_alive only: opens connections until `count` are ready (counting
   * those already in the pool: a ready check's, warm-ups'), so the first
   * wave's requests take them instead of connecting. Waits at most
   * PRECONNECT_DEADLINE_MS or until `signal`; one that fails is not there
   * (its request connects as usual). Sends nothing but the TCP (and TLS)
   * handshakes the first wave would make. Returns how many are ready.
   */
  async preconnect(count: number, signal?: AbortSignal): Promise<number> {
    if (this.perRequest || this.sweeping || signal?.aborted) return 0; // an interrupt before it: nothing to wait for
    const want = count - this.pool.stats.connected - this.spares.length;
    const { host, hostname, protocol, port } = this.origin;
    // What undici's Client passes its connector for this origin (an IPv6 literal without brackets).
    const options: buildConnector.Options = {
      host,
      hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
      protocol,
      port,
    };
    const opening: Promise<void>[] = [];
    for (let i = 0; i < want; i++)
      opening.push(
        new Promise((resolve) =>
          this.connector(options, (_err, socket) => {
            if (socket && !this.sweeping) this.addSpare(socket);
            resolve();
          }),
        ),
      );
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      Promise.all(opening),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, PRECONNECT_DEADLINE_MS);
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    return this.pool.stats.connected + this.spares.length;
  }

  private addSpare(socket: Socket): void {
    const entry = { socket, at: performance.now() };
    this.spares.push(entry);
    socket.once('close', () => {
      const i = this.spares.indexOf(entry);
      if (i >= 0) this.spares.splice(i, 1);
    });
  }

  /** A spare fit to carry a request: open, nothing unread from the server, not about to idle out. */
  private takeSpare(): Socket | undefined {
    for (let e = this.spares.shift(); e; e = this.spares.shift()) {
      const fresh = performance.now() - e.at <= (this.opts.spareMaxAgeMs ?? SPARE_MAX_AGE_MS);
      if (fresh && !e.socket.destroyed && !e.socket.readableEnded && e.socket.readableLength === 0) return e.socket;
      e.socket.destroy();
    }
    return undefined;
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
    // Spares belong to no client of the pool: its destroy would not close them.
    for (const e of this.spares.splice(0)) e.socket.destroy();
    // Nor would it close a connect in progress (undici destroys such a socket only once it connects).
    for (const s of this.connecting) s.destroy();
    this.connecting.clear();
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
