/**
 * keep_alive with a burst start opens the first wave's connections before
 * the clock (RunConnections.preconnect): no request of the run waits for a
 * handshake the later waves never pay, and no more connections are opened
 * than the run would have opened itself. A connection per request
 * (vLLM-Omni's way) and a paced start connect as they go.
 */
import dc from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { fullStream } from '#test/helpers/sse.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { RunConnections } from '#server/engine/transport/http/dispatcher.ts';
import { CONNECTED_CHANNEL, type ConnectedMessage } from '#server/engine/transport/h1/connection.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const config = (url: string, over: Partial<FlatBenchConfig>): RunConfig =>
  testBenchConfig(url, {
    runId: 'pre',
    numPrompts: 12,
    maxConcurrency: 3,
    dataset: { name: 'random', inputLen: 8, outputLen: 8 },
    ...over,
  });

/**
 * Runs the benchmark and counts the connections the client made to the target before and after `run.started`
 * (each connect, as the client publishes it: with a connection per request a closed socket connects again).
 */
async function run(over: Partial<FlatBenchConfig>): Promise<{ before: number; after: number; completed: number }> {
  server = await startSseServer(() => ({ kind: 'ok', tokens: 4 }));
  let started = false;
  const counts = { before: 0, after: 0 };
  const onConnected = (m: unknown): void => {
    // Only the run's own connections to the target (the warm-up is off: warmClient false).
    if ((m as ConnectedMessage).port === server?.port) counts[started ? 'after' : 'before']++;
  };
  dc.subscribe(CONNECTED_CHANNEL, onConnected);
  try {
    const out = await runBenchmark(config(server.url, over), {
      warmClient: false,
      onEvent: (e) => {
        if (e.type === 'run.started') started = true;
      },
    });
    return { ...counts, completed: out.summary.counts.completed };
  } finally {
    dc.unsubscribe(CONNECTED_CHANNEL, onConnected);
  }
}

describe('keep-alive: the first wave finds its connections open', () => {
  it('rate inf, concurrency 3: three connections, all opened before the clock started', async () => {
    const r = await run({ connectionMode: 'keep_alive' });
    expect(r).toEqual({ before: 3, after: 0, completed: 12 });
    expect(server!.closedAtMs.length + server!.openSockets).toBe(3);
  });

  it("counts the ready check's connection: still three in all, not four", async () => {
    const r = await run({ connectionMode: 'keep_alive', readyCheckTimeoutS: 5 });
    expect(r).toEqual({ before: 3, after: 0, completed: 12 });
    expect(server!.closedAtMs.length + server!.openSockets).toBe(3);
  });

  it('fewer requests than slots: only as many connections as requests', async () => {
    const r = await run({ connectionMode: 'keep_alive', numPrompts: 2 });
    expect(r).toEqual({ before: 2, after: 0, completed: 2 });
  });

  it('a connection per request (the default) connects as each request goes: nothing before the clock', async () => {
    const r = await run({ connectionMode: 'per_request' });
    expect(r).toEqual({ before: 0, after: 12, completed: 12 });
  });

  it('a paced start (finite rate) is not a burst: it connects as it goes', async () => {
    const r = await run({ connectionMode: 'keep_alive', requestRate: 2000 });
    expect(r.before).toBe(0);
    expect(r.after).toBeGreaterThanOrEqual(1);
    expect(r.completed).toBe(12);
  });

  it('a ramp-up is paced too (its request rate stays inf): it connects as it goes', async () => {
    const r = await run({ connectionMode: 'keep_alive', rampUp: { strategy: 'linear', startRps: 20, endRps: 40 } });
    expect(r.before).toBe(0);
    expect(r.after).toBeGreaterThanOrEqual(1);
    expect(r.completed).toBe(12);
  });
});

/** A server that numbers its connections in the order it accepts them and notes which request came on which. */
async function acceptOrderServer(): Promise<{ url: string; on: Map<string, number>; close(): Promise<void> }> {
  const on = new Map<string, number>();
  const accepted = new WeakMap<Socket, number>();
  let n = 0;
  const srv = createServer((req, res) => {
    on.set(String(req.headers['x-request-id']), accepted.get(req.socket) ?? -1);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(fullStream(2).join(''));
    });
  });
  srv.on('connection', (s: Socket) => accepted.set(s, n++));
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    on,
    close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
  };
}

describe('keep-alive: when and in which order the first wave’s connections are opened', () => {
  it('the first wave takes its connections in the order the server accepted them: request 0 on the first', async () => {
    const srv = await acceptOrderServer();
    try {
      const out = await runBenchmark(
        config(srv.url, { connectionMode: 'keep_alive', numPrompts: 4, maxConcurrency: 4 }),
        {
          warmClient: false,
        },
      );
      expect(out.summary.counts.completed).toBe(4);
      // Taken last-in-first-out (as reused connections are), request 0 went to the last one accepted.
      expect([0, 1, 2, 3].map((i) => srv.on.get(`pre-${i}`))).toEqual([0, 1, 2, 3]);
    } finally {
      await srv.close();
    }
  });

  it('they are opened before the client warm-up, so the server has accepted them by the clock', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const port = server.port;
    // Every client socket of this process by creation order, and, once connected, whether it went to the target.
    const toTarget: boolean[] = [];
    const onSocket = (m: unknown): void => {
      const { socket } = m as { socket: Socket };
      const seq = toTarget.length;
      toTarget.push(false);
      socket.once('connect', () => (toTarget[seq] = socket.remotePort === port));
    };
    dc.subscribe('net.client.socket', onSocket);
    try {
      const out = await runBenchmark(config(server.url, { connectionMode: 'keep_alive', maxConcurrency: 3 }), {
        warmClient: true,
      });
      expect(out.summary.counts.completed).toBe(12);
    } finally {
      dc.unsubscribe('net.client.socket', onSocket);
    }
    // The warm-up made sockets of its own (to its loopback server) after the target's three.
    expect(toTarget.length).toBeGreaterThan(3);
    expect(toTarget.slice(0, 3)).toEqual([true, true, true]);
    expect(toTarget.slice(3).every((t) => !t)).toBe(true);
  });
});

describe('RunConnections.preconnect: spares', () => {
  /** One request through the pool, answered by the test server. */
  const request = (c: RunConnections): Promise<number> =>
    new Promise((resolve, reject) => {
      c.dispatch(
        { path: '/v1/chat/completions', headers: {}, body: '{}', reset: false },
        {
          onConnect: () => undefined,
          onHeaders: (status: number) => {
            resolve(status);
            return true;
          },
          onData: () => true,
          onComplete: () => undefined,
          onError: reject,
        },
      );
    });

  it('a fresh spare carries the first request: one connection in all', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const c = new RunConnections(server.url, { maxConcurrency: 1, mode: 'keep_alive' });
    try {
      expect(await c.preconnect(1)).toBe(1);
      expect(await request(c)).toBe(200);
      expect(c.opened).toBe(1);
    } finally {
      await c.sweep(null);
    }
  });

  it('a spare older than its age limit is closed, not used: the request connects anew', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const c = new RunConnections(server.url, { maxConcurrency: 1, mode: 'keep_alive', spareMaxAgeMs: 20 });
    try {
      expect(await c.preconnect(1)).toBe(1);
      await new Promise((r) => setTimeout(r, 60));
      expect(await request(c)).toBe(200);
      expect(c.opened).toBe(2);
      // The stale spare was destroyed: the server saw it close.
      for (let i = 0; i < 50 && server.closedAtMs.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
      expect(server.closedAtMs).toHaveLength(1);
    } finally {
      await c.sweep(null);
    }
  });

  it('the sweep closes spares no request used', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const c = new RunConnections(server.url, { maxConcurrency: 3, mode: 'keep_alive' });
    expect(await c.preconnect(3)).toBe(3);
    expect(c.openSockets).toBe(3);
    expect(await c.sweep(null)).toEqual({ forcedSockets: 0 });
    expect(c.openSockets).toBe(0);
  });

  it('per_request mode opens nothing ahead', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const c = new RunConnections(server.url, { maxConcurrency: 3, mode: 'per_request' });
    expect(await c.preconnect(3)).toBe(0);
    expect(c.opened).toBe(0);
    await c.sweep(null);
  });
});
