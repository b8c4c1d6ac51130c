/**
 * A target that accepts TCP connections but never answers the TLS handshake
 * (a server whose event loop is stuck: the kernel still completes the TCP
 * handshake from its backlog). A connect in progress belongs to no client of
 * the pool yet: the run's sweep must still close it, or it holds the process
 * open after the run (undici's connect timeout is off, 0, by design).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PRECONNECT_DEADLINE_MS, RunConnections } from '#server/engine/transport/http/dispatcher.ts';

let server: Server | null = null;
const conns = new Set<Socket>();
let closed = 0;
afterEach(async () => {
  for (const c of conns) c.destroy();
  conns.clear();
  closed = 0;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** Accepts and never writes a byte: every TLS handshake stalls after the ClientHello. */
async function silentServer(): Promise<string> {
  server = createServer((c) => {
    conns.add(c);
    c.resume(); // reads (and drops) the ClientHello, so the client's close is seen
    c.on('error', () => undefined);
    c.on('close', () => closed++);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `https://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const until = async (cond: () => boolean, ms: number): Promise<boolean> => {
  for (const end = performance.now() + ms; !cond() && performance.now() < end;)
    await new Promise((r) => setTimeout(r, 5));
  return cond();
};

describe('connects still in progress at the sweep', () => {
  it("preconnect's stalled handshakes are closed by the sweep", async () => {
    const url = await silentServer();
    const c = new RunConnections(url, {
      maxConcurrency: 2,
      mode: 'keep_alive',
      connect: { rejectUnauthorized: false },
    });
    const stop = new AbortController();
    const pre = c.preconnect(2, stop.signal);
    expect(await until(() => conns.size === 2, 2_000)).toBe(true);
    stop.abort();
    expect(await pre).toBe(0);
    expect(await c.sweep(null)).toEqual({ forcedSockets: 0 });
    // The client's side closed: the server sees both connections end.
    expect(await until(() => closed === 2, 1_000)).toBe(true);
  });

  it("a request's own stalled connect is closed by the sweep, and the request fails", async () => {
    const url = await silentServer();
    const c = new RunConnections(url, {
      maxConcurrency: 1,
      mode: 'keep_alive',
      connect: { rejectUnauthorized: false },
    });
    const failed = new Promise<Error>((resolve) =>
      c.dispatch(
        { path: '/', headers: {}, body: '{}', reset: false },
        {
          onConnect: () => undefined,
          onHeaders: () => true,
          onData: () => true,
          onComplete: () => undefined,
          onError: resolve,
        },
      ),
    );
    expect(await until(() => conns.size === 1, 2_000)).toBe(true);
    await c.sweep(null);
    expect(await failed).toBeInstanceOf(Error);
    expect(await until(() => closed === 1, 1_000)).toBe(true);
  });

  it('an interrupt that came before preconnect: it returns at once, not after its deadline', async () => {
    const url = await silentServer();
    const c = new RunConnections(url, {
      maxConcurrency: 2,
      mode: 'keep_alive',
      connect: { rejectUnauthorized: false },
    });
    const stop = new AbortController();
    stop.abort();
    const t0 = performance.now();
    await c.preconnect(2, stop.signal);
    expect(performance.now() - t0).toBeLessThan(PRECONNECT_DEADLINE_MS / 2);
    await c.sweep(null);
  });
});
