/**
 * A loopback `/v1/chat/completions` SSE server for tests and benchmarks,
 * listening on 127.0.0.1:0. A behaviour function decides, per arriving
 * request, whether it streams, hangs, resets or answers an error. The
 * server counts arrivals and records every socket's close time, so tests can
 * prove what was (not) sent and that aborted sockets were closed.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { fullStream } from './sse.ts';

export type Behaviour =
  /** Stream `tokens` text events (+ audio chunks), `gapMs` apart (0 = one write). */
  | {
      kind: 'ok';
      tokens?: number;
      audioChunks?: number;
      gapMs?: number;
      delayMs?: number;
      /** With no gap: the final usage event and `[DONE]` this long after the rest (two writes, two reads). */
      tailMs?: number;
    }
  /** Accept and read the request, never answer. */
  | { kind: 'hang' }
  /** 200 and SSE headers, then silence. */
  | { kind: 'hang-after-headers' }
  /** `events` SSE events of a normal stream, then silence. */
  | { kind: 'hang-mid-stream'; events: number }
  /** Destroy the socket before answering. */
  | { kind: 'reset' }
  /** `events` SSE events, then destroy the socket. */
  | { kind: 'reset-mid-stream'; events: number }
  /** A non-200 status with a small body (or `bodyBytes` of filler, never ended when `hold`). */
  | { kind: 'status'; status: number; bodyBytes?: number; hold?: boolean }
  /** 200 with these raw body chunks, then end. */
  | { kind: 'raw'; chunks: (string | Uint8Array)[] };

export interface Arrival {
  /** 0-based arrival order. */
  n: number;
  requestId: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** performance.now() at arrival. */
  atMs: number;
}

export interface TestServer {
  url: string;
  port: number;
  arrivals: Arrival[];
  /** GET requests (not arrivals): path and headers. */
  gets: { path: string; headers: IncomingHttpHeaders }[];
  /** Sockets currently open on the server side. */
  readonly openSockets: number;
  /** performance.now() of every server-side socket close, in order. */
  closedAtMs: number[];
  /** Resolves once `n` requests have arrived. */
  waitForArrivals(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface SseServerOptions {
  /** Serve HTTPS with this key and certificate (PEM); the URL is then https://. */
  tls?: { key: string; cert: string };
  /** Close each connection after its response (`Connection: close`): a new connection per request. */
  closeEach?: boolean;
  /** JSON answers to GET by path (`'hang'`: never answer); any other GET is a 404. Never counted as arrivals. */
  getRoutes?: Record<string, unknown>;
}

export async function startSseServer(
  behave: (a: Arrival) => Behaviour | Promise<Behaviour>,
  opts: SseServerOptions = {},
): Promise<TestServer> {
  const arrivals: Arrival[] = [];
  const gets: TestServer['gets'] = [];
  const sockets = new Set<Socket>();
  const closedAtMs: number[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const timers = new Set<NodeJS.Timeout>();

  const handler: RequestListener = (req, res) => {
    if (opts.closeEach) res.shouldKeepAlive = false;
    // A run's reads of the server's identity (GET /v1/models, /version; no request id) are not benchmark arrivals;
    // the liveness probe's GETs carry a request id and are recorded like any request.
    if (req.method === 'GET' && req.headers['x-request-id'] === undefined) {
      gets.push({ path: req.url ?? '', headers: req.headers });
      const answer = opts.getRoutes?.[req.url ?? ''];
      if (answer === 'hang') return;
      if (answer === undefined) res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // Tests of malformed requests read `body` as {}.
      }
      const a: Arrival = {
        n: arrivals.length,
        requestId: String(req.headers['x-request-id'] ?? ''),
        headers: req.headers,
        body,
        atMs: performance.now(),
      };
      arrivals.push(a);
      for (const w of waiters.splice(0))
        if (arrivals.length >= w.n) w.resolve();
        else waiters.push(w);
      Promise.resolve(behave(a)).then(
        (b) => respond(b, req, res),
        () => res.destroy(),
      );
    });
  };
  const server = opts.tls ? createTlsServer(opts.tls, handler) : createServer(handler);
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      closedAtMs.push(performance.now());
    });
  });

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  function respond(b: Behaviour, req: IncomingMessage, res: ServerResponse): void {
    const sseHead = (): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
    };
    switch (b.kind) {
      case 'hang':
        return;
      case 'hang-after-headers':
        return sseHead();
      case 'hang-mid-stream':
        sseHead();
        res.write(
          fullStream(b.events + 2)
            .slice(0, b.events)
            .join(''),
        );
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'reset-mid-stream':
        sseHead();
        res.write(
          fullStream(b.events + 2)
            .slice(0, b.events)
            .join(''),
          () => req.socket.destroy(),
        );
        return;
      case 'status':
        res.writeHead(b.status, { 'content-type': 'application/json' });
        if (b.bodyBytes) {
          res.write(Buffer.alloc(b.bodyBytes, 0x20));
          if (!b.hold) res.end();
          return;
        }
        res.end(JSON.stringify({ error: { message: 'test error', code: b.status } }));
        return;
      case 'raw':
        sseHead();
        for (const c of b.chunks) res.write(c);
        res.end();
        return;
      case 'ok': {
        const events = fullStream(b.tokens ?? 5, b.audioChunks ?? 0);
        const start = (): void => {
          sseHead();
          if (!b.gapMs && b.tailMs) {
            res.write(events.slice(0, -2).join(''));
            return void later(b.tailMs, () => res.end(events.slice(-2).join('')));
          }
          if (!b.gapMs) return void res.end(events.join(''));
          let i = 0;
          const step = (): void => {
            if (res.destroyed) return;
            res.write(events[i++]);
            if (i < events.length) later(b.gapMs!, step);
            else res.end();
          };
          step();
        };
        if (b.delayMs) later(b.delayMs, start);
        else start();
        return;
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    arrivals,
    gets,
    get openSockets() {
      return sockets.size;
    },
    closedAtMs,
    waitForArrivals(n) {
      if (arrivals.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 with nothing listening (connections are refused). */
export async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
