/**
 * The connections of one run (docs/design.md#connections), and the run's
 * HTTP/1.1 client: every socket is opened here, held here and closed here,
 * so the sweep that ends a run closes every one of them without relying on
 * any library's bookkeeping. Requests are written and responses read by
 * h1/ (one SocketExchange per request), on plain `net`/`tls` sockets: the
 * benchmark's hot path, where an HTTP library's per-request machinery was
 * half the transport's CPU (docs/performance.md#transport).
 *
 * `per_request` (the default, as vLLM-Omni's `force_close=True`): each
 * request asks for its connection to be closed after the response, so every
 * request opens a new TCP connection and its TTFT includes the connect.
 * `keep_alive` reuses connections (idle ones; at most one per request in
 * flight, so no more than the concurrency).
 *
 * `preconnect` (keep_alive, a burst start) opens the first wave's
 * connections before the clock, as wrk does: later waves reuse theirs, so
 * handshakes queued at the server at once would be in the first wave's TTFT
 * only, a cost no later wave pays.
 *
 * No timer of its own classifies anything: the attempt's structural timers
 * (timeouts.ts) are the only clocks.
 */
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type { ConnectionMode } from '../../../../shared/types.ts';
import { withoutStacks } from './cancelSweep.ts';
import { Connection, type Endpoint } from '../h1/connection.ts';
import { ReadTurn } from '../h1/readTurn.ts';
import { SocketExchange, type ExchangeHandler } from '../h1/socketExchange.ts';
import { requestHead } from '../h1/requestHead.ts';

/** How long the sweep waits for every socket to close before destroying them one by one. */
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
/** An idle connection is reused for this long after its response, or the server's Keep-Alive timeout less a second. */
const KEEP_ALIVE_MS = 30_000;
const KEEP_ALIVE_MARGIN_MS = 1_000;
/** Closed connections kept to reconnect when the run sets no concurrency limit. */
const MAX_KEPT_CLOSED = 256;

export interface ConnectionOptions {
  maxConcurrency: number | null;
  mode: ConnectionMode;
  /** TLS settings for an https target (tls.ts). */
  connect?: TlsOptions;
  /** Test hook: the sweep's first phase closes nothing (proves the per-socket fallback alone ends a run). */
  skipPoolDestroy?: boolean;
  /** Test hook: a preconnected spare older than this is closed rather than used (default SPARE_MAX_AGE_MS). */
  spareMaxAgeMs?: number;
  /** The run's clock (monotonic seconds), which stamps each read (h1/readTurn.ts); performance.now()'s by default. */
  now?: () => number;
}

export interface SweepResult {
  /** Sockets still open at the deadline, destroyed one by one. Expected 0. */
  forcedSockets: number;
}

/** One request as the attempt hands it over. */
export interface DispatchRequest {
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Close the connection after this response (a connection per request). */
  reset: boolean;
}

/** What an attempt sends its requests through: a run's connections, or a test's stand-in. */
export interface Dispatcher {
  dispatch(request: DispatchRequest, handler: ExchangeHandler): void;
}

/** The run closed its connections with requests still on them, without a reason of its own. */
class ConnectionsClosedError extends Error {
  readonly code = 'HTTP_CONNECTIONS_CLOSED';
  constructor() {
    super("the run's connections were closed");
    this.name = 'ConnectionsClosedError';
  }
}

const secondsNow = (): number => performance.now() / 1000;

export class RunConnections implements Dispatcher {
  readonly mode: ConnectionMode;
  /** Every socket of the run, from its connect until its close. */
  private readonly all = new Set<Connection>();
  /** Connected and idle, oldest first. */
  private readonly idle: Connection[] = [];
  /** Sockets connected over the run (a loopback test counts them against the server's view). */
  opened = 0;
  /**
   * A connection per request: closed plain TCP connections, to connect again instead of a new socket
   * (Connection.reopen()); at most as many as the run has in flight, and none once the sweep began.
   */
  private readonly closed: Connection[] = [];
  private sweeping: Promise<SweepResult> | null = null;
  private readonly endpoint: Endpoint;
  private readonly host: string;
  private hurryFn: (() => void) | null = null;
  private hurried = false;
  private readonly reads: ReadTurn;
  private readonly onConnected = (): void => void this.opened++;
  private readonly onClosed = (c: Connection): void => {
    this.all.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    // Kept once its `close` was emitted to every listener (a microtask later), for a later request's connect.
    if (this.perRequest && c.reopenable && !this.sweeping) queueMicrotask(() => this.keepClosed(c));
  };

  constructor(
    origin: string,
    private readonly opts: ConnectionOptions,
  ) {
    this.mode = opts.mode;
    const url = new URL(origin);
    const tls = url.protocol === 'https:';
    // An IPv6 literal is bracketed in a URL, never in a connect.
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.endpoint = { host: hostname, port: Number(url.port || (tls ? 443 : 80)), tls, tlsOptions: opts.connect };
    this.host = url.host;
    this.reads = new ReadTurn(opts.now ?? secondsNow);
  }

  /** True when each request must close its connection after the response. */
  get perRequest(): boolean {
    return this.mode === 'per_request';
  }

  get openSockets(): number {
    return this.all.size;
  }

  /**
   * Sends one request: on an idle connection when one is fit, else on a new
   * one. Everything that happens after is the handler's (socketExchange.ts);
   * a request the client cannot write (an invalid header) or one after the
   * sweep fails through `onError` at once.
   */
  dispatch(request: DispatchRequest, handler: ExchangeHandler): void {
    let head: string;
    try {
      if (this.sweeping) throw new ConnectionsClosedError();
      const bytes = typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.byteLength;
      head = requestHead(request.path, this.host, request.headers, bytes, request.reset);
    } catch (err) {
      handler.onConnect(() => undefined);
      handler.onError(err as Error);
      return;
    }
    const c = (this.perRequest ? undefined : this.takeIdle()) ?? this.open();
    // The exchange folds `reset` into what it hands back: a request that asked for the close is never reusable.
    const exchange = new SocketExchange(
      c.socket,
      handler,
      (reusable, keepAliveS) => this.release(c, reusable, keepAliveS),
      request.reset,
    );
    c.exchange = exchange;
    exchange.start(head, request.body);
  }

  private open(): Connection {
    let c = this.closed.pop();
    if (c) c.reopen();
    else c = new Connection(this.endpoint, this.reads, this.onConnected, this.onClosed);
    this.all.add(c);
    return c;
  }

  /**
   * A connection per request, plain TCP: makes the sockets of `count` first requests before the clock, closed,
   * for their requests to connect (reopen()) as later requests do on the run's closed ones. Made in a first-wave
   * start, each socket object (a stream's state, its listeners: docs/performance.md#socket-reuse) delayed every
   * later start of the wave, and every start delays the wave's first connects (the wave starts in
   * one turn, as asyncio's tasks do). Connects nothing; holds no handle.
   */
  prepareSockets(count: number): void {
    if (!this.perRequest || this.endpoint.tls || this.sweeping) return;
    const want = Math.min(count, this.opts.maxConcurrency ?? MAX_KEPT_CLOSED) - this.closed.length;
    for (let i = 0; i < want; i++)
      this.closed.push(new Connection(this.endpoint, this.reads, this.onConnected, this.onClosed, true));
  }

  private keepClosed(c: Connection): void {
    if (this.sweeping || !c.reopenable || this.closed.length >= (this.opts.maxConcurrency ?? MAX_KEPT_CLOSED)) return;
    this.closed.push(c);
  }

  /** A finished exchange hands its connection back: kept idle when it may carry another request, else closed. */
  private release(c: Connection, reusable: boolean, keepAliveS: number | null): void {
    c.exchange = null;
    if (!reusable || this.perRequest || this.sweeping || c.socket.destroyed) {
      c.socket.destroy();
      return;
    }
    c.idleSince = performance.now();
    c.maxIdleMs = keepAliveS === null ? KEEP_ALIVE_MS : Math.max(0, keepAliveS * 1000 - KEEP_ALIVE_MARGIN_MS);
    this.idle.push(c);
  }

  /** The most recently idle connection fit to carry a request; stale ones are closed on the way. */
  private takeIdle(): Connection | undefined {
    const now = performance.now();
    for (let c = this.idle.pop(); c; c = this.idle.pop()) {
      if (c.fresh(now)) return c;
      c.socket.destroy();
    }
    return undefined;
  }

  /**
   * keep_alive only: opens connections until `count` are ready (counting
   * those already open: a ready check's, warm-ups'), so the first wave's
   * requests take them instead of connecting. Waits at most
   * PRECONNECT_DEADLINE_MS or until `signal`; one that fails is not there
   * (its request connects as usual). Sends nothing but the TCP (and TLS)
   * handshakes the first wave would make. Returns how many are ready.
   */
  async preconnect(count: number, signal?: AbortSignal): Promise<number> {
    if (this.perRequest || this.sweeping || signal?.aborted) return 0; // an interrupt before it: nothing to wait for
    const ready = (): number => [...this.all].filter((c) => c.connected && !c.socket.destroyed).length;
    const want = count - this.all.size;
    const opening: Promise<void>[] = [];
    const maxIdleMs = this.opts.spareMaxAgeMs ?? SPARE_MAX_AGE_MS;
    for (let i = 0; i < want; i++) {
      const c = this.open();
      opening.push(
        new Promise((resolve) => {
          c.socket.once(this.endpoint.tls ? 'secureConnect' : 'connect', () => {
            // A spare's age counts from its connect: the server's idle clock starts there.
            c.idleSince = performance.now();
            c.maxIdleMs = maxIdleMs;
            if (!this.sweeping && c.exchange === null) this.idle.push(c);
            resolve();
          });
          c.socket.once('close', () => resolve());
        }),
      );
    }
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
    // The first wave takes the spares in the order they connected (takeIdle pops the last one): the server
    // accepts connections in that order, so the run's first request goes to the one it accepted first.
    this.idle.sort((a, b) => b.idleSince - a.idleSince);
    return ready();
  }

  /**
   * Closes every connection of the run, at once: each request still on one
   * fails with `reason`, every socket is destroyed; whatever socket is still
   * open after CLEANUP_DEADLINE_MS (or at once after `hurry()`) is destroyed
   * again one by one and counted. Idempotent: a second call returns the first sweep.
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
    // What was read before the sweep is handled first: a response that arrived whole ends as it would have.
    this.reads.flush();
    this.idle.length = 0;
    this.closed.length = 0;
    const conns = [...this.all];
    const closing = conns.map(
      (c) => new Promise<void>((r) => (c.socket.destroyed ? r() : c.socket.once('close', () => r()))),
    );
    if (!this.opts.skipPoolDestroy)
      withoutStacks(() => {
        const err = reason ?? new ConnectionsClosedError();
        for (const c of conns) {
          if (c.exchange) c.exchange.fail(err, true);
          else c.socket.destroy();
        }
      });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      this.hurryFn = resolve;
      if (this.hurried) resolve();
      timer = setTimeout(resolve, CLEANUP_DEADLINE_MS);
    });
    await Promise.race([Promise.all(closing), deadline]);
    clearTimeout(timer);
    this.hurryFn = null;
    // Sockets already destroyed emit `close` shortly; only those nobody destroyed need the fallback.
    const left = [...this.all];
    if (left.length === 0) return { forcedSockets: 0 };
    const forced = left.filter((c) => !c.socket.destroyed);
    const closed = Promise.all(left.map((c) => new Promise<void>((r) => c.socket.once('close', () => r()))));
    withoutStacks(() => {
      for (const c of forced) c.socket.destroy(reason ?? undefined);
    });
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((r) => (grace = setTimeout(r, FALLBACK_GRACE_MS)))]);
    clearTimeout(grace);
    return { forcedSockets: forced.length };
  }
}
