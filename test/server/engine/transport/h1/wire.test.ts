/**
 * The run's HTTP/1.1 client on the wire (dispatcher.ts, h1/): against a raw
 * TCP server that answers each request with exactly the bytes a case gives,
 * in the writes it gives (informational heads, a head cut byte by byte, the
 * three body framings, a close mid-body, bytes after a response), what the
 * handler sees and whether the connection is reused.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RunConnections } from '#server/engine/transport/http/dispatcher.ts';
import type { ConnectionMode } from '#shared/types.ts';

let server: Server | null = null;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  if (server) await new Promise<void>((r) => server!.close(() => r()));
  server = null;
});

interface Wire {
  url: string;
  /** Connections accepted, and the raw requests read (one string per request). */
  connections: number;
  requests: string[];
}

/** A server writing `answer(i)`'s pieces (one write each, a tick apart) for request i; `end` closes after. */
async function rawServer(answer: (i: number) => { pieces: string[]; end?: boolean }): Promise<Wire> {
  const wire: Wire = { url: '', connections: 0, requests: [] };
  server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined); // a client that closed first
    wire.connections++;
    let buf = '';
    let writing = Promise.resolve();
    s.on('data', (d) => {
      buf += d.toString('latin1');
      writing = writing.then(answerNext);
    });
    const answerNext = async (): Promise<void> => {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      wire.requests.push(buf.slice(0, end + 4 + length));
      buf = buf.slice(end + 4 + length);
      const { pieces, end: close } = answer(wire.requests.length - 1);
      for (const p of pieces) {
        s.write(Buffer.from(p, 'latin1'));
        await new Promise((r) => setTimeout(r, 2));
      }
      if (close) s.end();
    };
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  wire.url = `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
  return wire;
}

interface Seen {
  heads: number[];
  body: string;
  error: (Error & { code?: string }) | null;
}

/** One request through `c`; resolves with what its handler saw once it completed or failed. */
function send(c: RunConnections, headers: Record<string, string> = {}): Promise<Seen> {
  const seen: Seen = { heads: [], body: '', error: null };
  return new Promise((resolve) =>
    c.dispatch(
      { path: '/v1/chat/completions', headers, body: '{"a":1}', reset: c.perRequest },
      {
        onConnect: () => undefined,
        onHeaders: (status) => {
          seen.heads.push(status);
          return true;
        },
        onData: (chunk) => {
          seen.body += Buffer.from(chunk).toString('latin1');
          return true;
        },
        onComplete: () => resolve(seen),
        onError: (err) => {
          seen.error = err;
          resolve(seen);
        },
      },
    ),
  );
}

const connections = (url: string, mode: ConnectionMode = 'keep_alive') =>
  new RunConnections(url, { maxConcurrency: 4, mode });

const CHUNKED = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';

describe('the run client on the wire', () => {
  it('writes one POST: the host, the headers, the length, keep-alive', async () => {
    const wire = await rawServer(() => ({ pieces: ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'] }));
    const c = connections(wire.url);
    expect((await send(c, { 'x-request-id': 'r-1' })).body).toBe('ok');
    await c.sweep(null);
    const host = new URL(wire.url).host;
    expect(wire.requests).toEqual([
      `POST /v1/chat/completions HTTP/1.1\r\nhost: ${host}\r\nx-request-id: r-1\r\ncontent-length: 7\r\nconnection: keep-alive\r\n\r\n{"a":1}`,
    ]);
  });

  it("a caller's host header replaces the origin's (a target behind a proxy that routes by name)", async () => {
    const wire = await rawServer(() => ({ pieces: ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'] }));
    const c = connections(wire.url);
    expect((await send(c, { host: 'omni.internal', 'x-a': '1' })).body).toBe('ok');
    await c.sweep(null);
    expect(wire.requests[0]).toMatch(/^POST \/v1\/chat\/completions HTTP\/1\.1\r\nhost: omni\.internal\r\nx-a: 1\r\n/);
    expect(wire.requests[0].match(/\r\nhost:/gi)).toHaveLength(1);
  });

  it('informational heads, then the final one, all in one write: each head seen, the body read', async () => {
    const wire = await rawServer(() => ({
      pieces: [
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n' +
          CHUNKED +
          '3\r\nabc\r\n0\r\n\r\n',
      ],
    }));
    const c = connections(wire.url);
    expect(await send(c)).toEqual({ heads: [100, 103, 200], body: 'abc', error: null });
    await c.sweep(null);
  });

  it('a head and a body cut byte by byte read the same', async () => {
    const whole = CHUNKED + '5\r\nhello\r\n0\r\n\r\n';
    const wire = await rawServer(() => ({ pieces: [...whole] }));
    const c = connections(wire.url);
    expect(await send(c)).toEqual({ heads: [200], body: 'hello', error: null });
    await c.sweep(null);
  });

  it('keep-alive: a framed response leaves the connection for the next request', async () => {
    const wire = await rawServer(() => ({ pieces: [CHUNKED + '2\r\nok\r\n0\r\n\r\n'] }));
    const c = connections(wire.url);
    for (let i = 0; i < 3; i++) expect((await send(c)).body).toBe('ok');
    expect(wire.connections).toBe(1);
    expect(c.opened).toBe(1);
    await c.sweep(null);
  });

  it('a connection per request: connection: close sent, a new connection each time', async () => {
    const wire = await rawServer(() => ({ pieces: ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'] }));
    const c = connections(wire.url, 'per_request');
    for (let i = 0; i < 3; i++) expect((await send(c)).body).toBe('ok');
    expect(wire.connections).toBe(3);
    expect(wire.requests.every((r) => r.includes('\r\nconnection: close\r\n'))).toBe(true);
    await c.sweep(null);
  });

  it('Keep-Alive: timeout=1 leaves no idle time worth the risk: the next request connects anew', async () => {
    const wire = await rawServer(() => ({
      pieces: ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\nkeep-alive: timeout=1\r\n\r\nok'],
    }));
    const c = connections(wire.url);
    await send(c);
    await new Promise((r) => setTimeout(r, 5));
    await send(c);
    expect(wire.connections).toBe(2);
    await c.sweep(null);
  });

  it('bytes after a framed response: the connection is not reused', async () => {
    const wire = await rawServer(() => ({ pieces: ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokSURPLUS'] }));
    const c = connections(wire.url);
    expect((await send(c)).body).toBe('ok');
    expect((await send(c)).body).toBe('ok');
    expect(wire.connections).toBe(2);
    await c.sweep(null);
  });

  it('HTTP/1.0 with no length: the body ends with the server close, and completes', async () => {
    const wire = await rawServer(() => ({
      pieces: ['HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\n', 'data: 1\n\n'],
      end: true,
    }));
    const c = connections(wire.url);
    expect(await send(c)).toEqual({ heads: [200], body: 'data: 1\n\n', error: null });
    await c.sweep(null);
  });

  it('a close in the middle of a chunked body fails the request as a closed connection (retried as a transport failure)', async () => {
    const wire = await rawServer(() => ({ pieces: [CHUNKED + '5\r\nhel'], end: true }));
    const c = connections(wire.url);
    const seen = await send(c);
    expect(seen.body).toBe('hel');
    expect(seen.error?.code).toBe('HTTP_CLOSED_EARLY');
    expect(seen.error?.message).toBe('the target closed the connection in the middle of the response body');
    await c.sweep(null);
  });

  it('a close before any head: closed before the response head', async () => {
    const wire = await rawServer(() => ({ pieces: [], end: true }));
    const c = connections(wire.url);
    const seen = await send(c);
    expect(seen.heads).toEqual([]);
    expect(seen.error?.message).toBe('the target closed the connection before the response head');
    await c.sweep(null);
  });

  it('a response that is not HTTP/1.x fails with what was wrong', async () => {
    const wire = await rawServer(() => ({ pieces: ['SSH-2.0-OpenSSH\r\n\r\n'] }));
    const c = connections(wire.url);
    const seen = await send(c);
    expect(seen.error?.code).toBe('HTTP_BAD_RESPONSE');
    expect(seen.error?.message).toMatch(
      /^the target's response is not valid HTTP\/1.1: status line "SSH-2.0-OpenSSH"$/,
    );
    await c.sweep(null);
  });

  it('a header value with CR LF is refused before anything is sent', async () => {
    const wire = await rawServer(() => ({ pieces: ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'] }));
    const c = connections(wire.url);
    const seen = await send(c, { 'x-a': 'b\r\nx-injected: 1' });
    expect(seen.error?.code).toBe('HTTP_INVALID_HEADER');
    expect(c.opened).toBe(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(wire.connections).toBe(0);
    await c.sweep(null);
  });

  it('a header the client writes itself is refused', async () => {
    const wire = await rawServer(() => ({ pieces: [] }));
    const c = connections(wire.url);
    expect((await send(c, { 'Content-Length': '9' })).error?.message).toBe(
      'header Content-Length is set by the client itself',
    );
    await c.sweep(null);
  });

  it("the sweep fails a request still on its connection with the sweep's reason, and closes it", async () => {
    const wire = await rawServer(() => ({ pieces: [CHUNKED + '1\r\na\r\n'] })); // never ends
    const c = connections(wire.url);
    const pending = send(c);
    while (wire.requests.length === 0) await new Promise((r) => setTimeout(r, 2));
    const reason = new Error('breaker tripped');
    expect(await c.sweep(reason)).toEqual({ forcedSockets: 0 });
    expect((await pending).error).toBe(reason);
    expect(c.openSockets).toBe(0);
  });
});
