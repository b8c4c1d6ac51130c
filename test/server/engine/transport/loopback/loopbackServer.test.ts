/**
 * The warm-up's own server (loopbackServer.ts), read by a client that is not
 * ours (Node's http client, with and without keep-alive, and raw sockets):
 * every request is answered with the whole stream, chunked; every other
 * response closes its connection, as does one that asked for it; what it
 * cannot read as a request closes the connection instead of hanging it.
 */
import { request, Agent } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loopbackServer, type LoopbackServer } from '#server/engine/transport/loopback/loopbackServer.ts';

const EVENTS = ['data: {"a":1}\n\n', 'data: {"b":"two"}\n\n', 'data: {"c":[3]}\n\n', 'data: [DONE]\n\n'];

let served: LoopbackServer | null = null;
afterEach(async () => {
  if (!served) return;
  for (const s of served.sockets) s.destroy();
  await new Promise<void>((resolve) => served!.server.close(() => resolve()));
  served = null;
});

const portOf = (s: LoopbackServer): number => (s.server.address() as AddressInfo).port;

function post(
  port: number,
  agent: Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ prompt: 'hello' });
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent, headers },
      (res) => {
        let text = '';
        res.setEncoding('latin1');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe("the warm-up's loopback server", () => {
  it('answers each request with the whole stream, chunked; every other response closes its connection', async () => {
    served = await loopbackServer(EVENTS, false);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await post(portOf(served), agent));
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(a.headers['transfer-encoding']).toBe('chunked');
        expect(a.headers['content-type']).toBe('text/event-stream');
        expect(a.body).toBe(EVENTS.join(''));
      }
      expect(answers.map((a) => a.headers.connection)).toEqual(['keep-alive', 'close', 'keep-alive', 'close']);
    } finally {
      agent.destroy();
    }
  });

  it('closes after a response to a request that asked for the close', async () => {
    served = await loopbackServer(EVENTS, false);
    const agent = new Agent({ keepAlive: false });
    const a = await post(portOf(served), agent, { connection: 'close' });
    expect(a.headers.connection).toBe('close');
    expect(a.body).toBe(EVENTS.join(''));
  });

  it('two requests written at once on one connection get two whole answers, in order', async () => {
    served = await loopbackServer(EVENTS, false);
    const s = connect(portOf(served), '127.0.0.1');
    const req = (close: boolean): string =>
      `POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n${close ? 'connection: close\r\n' : ''}\r\n{}`;
    s.end(req(false) + req(true));
    let text = '';
    s.setEncoding('latin1');
    s.on('data', (c: string) => (text += c));
    await once(s, 'close');
    expect(text.split('HTTP/1.1 200 OK').length - 1).toBe(2);
    expect(text.endsWith('0\r\n\r\n')).toBe(true);
  });

  it('a request it cannot read (no content-length, or a head that never ends) is closed, not left hanging', async () => {
    served = await loopbackServer(EVENTS, false);
    const port = portOf(served);
    for (const bytes of ['POST / HTTP/1.1\r\nhost: x\r\n\r\n', `POST / HTTP/1.1\r\nx: ${'a'.repeat(70 * 1024)}`]) {
      const s = connect(port, '127.0.0.1');
      // The server may close while this write is still going out: a reset is expected here, not a failure.
      s.on('error', () => undefined);
      s.write(bytes);
      let text = '';
      s.on('data', (c: Buffer) => (text += c.toString('latin1')));
      await once(s, 'close');
      expect(text).toBe('');
    }
  });
});
