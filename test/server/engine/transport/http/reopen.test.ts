/**
 * With a connection per request, a closed plain TCP connection connects
 * again on the same socket object (Connection.reopen()): every request
 * still gets a connection of its own, each record is its own request's
 * (also after a reset on a reused socket), and TLS sockets are never
 * reconnected.
 */
import dc from 'node:diagnostics_channel';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedPort, startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { CONNECTED_CHANNEL, Connection, type ConnectedMessage } from '#server/engine/transport/h1/connection.ts';
import { ReadTurn } from '#server/engine/transport/h1/readTurn.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const idx = (id: string): number => Number(id.split('-').pop());

/** Runs `n` requests, a connection each, counting socket objects made and connects to the target. */
async function perRequestRun(n: number, concurrency: number) {
  let objects = 0;
  let connects = 0;
  const onSocket = (): void => void objects++;
  const onConnected = (m: unknown): void => {
    if ((m as ConnectedMessage).port === server?.port) connects++;
  };
  dc.subscribe('net.client.socket', onSocket);
  dc.subscribe(CONNECTED_CHANNEL, onConnected);
  try {
    const out = await runBenchmark(
      testBenchConfig(server!.url, {
        runId: 'reopen',
        numPrompts: n,
        maxConcurrency: concurrency,
        connectionMode: 'per_request',
        dataset: { name: 'random', inputLen: 8, outputLen: 8 },
      }),
      { warmClient: false },
    );
    return { out, objects, connects };
  } finally {
    dc.unsubscribe('net.client.socket', onSocket);
    dc.unsubscribe(CONNECTED_CHANNEL, onConnected);
  }
}

describe('a connection per request reconnects closed sockets', () => {
  it('24 requests at concurrency 3: 24 connections the server saw closed, on a handful of socket objects', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 4 }), { closeEach: true });
    const { out, objects, connects } = await perRequestRun(24, 3);
    expect(out.summary.counts.completed).toBe(24);
    expect(connects).toBe(24);
    expect(server.arrivals).toHaveLength(24);
    // Sockets made by net.connect in the run (the first wave's three were made before the clock): one more a slot
    // at most, while its last one is still closing.
    expect(objects).toBeLessThanOrEqual(3);
    await server.close();
    expect(server.closedAtMs.length).toBeGreaterThanOrEqual(24);
  });

  it("the first wave's sockets are made before the clock: its requests connect them, as later ones reconnect", async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 4 }), { closeEach: true });
    // One wave: every request of the run has a socket made before it; none is made by net.connect in the run.
    const { out, objects, connects } = await perRequestRun(4, 4);
    expect(out.summary.counts.completed).toBe(4);
    expect(connects).toBe(4);
    expect(server.arrivals).toHaveLength(4);
    expect(objects).toBe(0);
  });

  it('a reset on a socket fails that request alone; the socket reconnects for the next ones', async () => {
    server = await startSseServer(
      (a) => (idx(a.requestId) % 4 === 1 ? { kind: 'reset-mid-stream', events: 2 } : { kind: 'ok', tokens: 3 }),
      { closeEach: true },
    );
    const { out, objects, connects } = await perRequestRun(12, 1);
    expect([...out.statuses].map((s, i) => `${i}:${s}`)).toEqual(
      Array.from({ length: 12 }, (_, i) => `${i}:${i % 4 === 1 ? 'failed' : 'completed'}`),
    );
    for (let i = 0; i < 12; i++) if (i % 4 !== 1) expect(out.records.at(i)!.outputTokens).toBe(3);
    // A reset is a transport failure: retried, a connection each attempt (4 for each of the three).
    expect(connects).toBe(9 + 3 * 4);
    expect(server.arrivals).toHaveLength(9 + 3 * 4);
    // A few socket objects for 21 connections (a request's next connect may come before its last one closed).
    expect(objects).toBeLessThanOrEqual(6);
  });

  it('a TLS connection is never reopened, nor one still open', async () => {
    const refusing = createServer((s) => s.destroy());
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', () => r()));
    const port = (refusing.address() as AddressInfo).port;
    const nobody = await refusedPort();
    const reads = new ReadTurn(() => performance.now() / 1000);
    try {
      const closedOnce = (tls: boolean) =>
        new Promise<Connection>((resolve) => {
          const c = new Connection(
            { host: '127.0.0.1', port, tls },
            reads,
            () => undefined,
            (closed) => resolve(closed),
          );
          expect(c.reopenable).toBe(false); // open (connecting)
        });
      const tcp = await closedOnce(false);
      expect(tcp.reopenable).toBe(true);
      // Refused again and again (nothing listens): each connect's listeners go with its close, none pile up.
      const refused = await new Promise<Connection>((resolve) => {
        const c = new Connection({ host: '127.0.0.1', port: nobody, tls: false }, reads, () => undefined, resolve);
        c.socket.on('error', () => undefined);
      });
      // (Node keeps one of its own, a read waiting for the connect: the count after each close stays where it was.)
      const base = refused.socket.listenerCount('connect');
      const after: number[] = [];
      for (let k = 0; k < 12; k++) {
        const closed = new Promise<void>((r) => refused.socket.once('close', () => r()));
        refused.reopen();
        await closed;
        after.push(refused.socket.listenerCount('connect'));
      }
      expect(refused.reopenable).toBe(true);
      expect(after).toEqual(Array(12).fill(base));
      const tls = await closedOnce(true);
      expect(tls.reopenable).toBe(false);
      expect(() => tls.reopen()).toThrow(/plain TCP/);
    } finally {
      await new Promise<void>((r) => refusing.close(() => r()));
    }
  });
});
