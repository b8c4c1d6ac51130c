/**
 * A dashboard whose database is away and whose outage buffer is full answers
 * 503: the reporter keeps the refused batch and posts it again (back-off, or
 * the reply's Retry-After), so every event arrives exactly once, in order.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRemoteReporter } from '#server/engine/report/remote.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';

describe('RemoteReporter and a 503', () => {
  it('retries the refused batch until it is taken, losing and repeating nothing', async () => {
    const received: string[] = [];
    let refusals = 2;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url?.endsWith('/events')) {
          if (refusals-- > 0) {
            res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
            return void res.end('{"code":"STORE_UNAVAILABLE","message":"full"}');
          }
          for (const e of (JSON.parse(body) as { events: { message: string }[] }).events) received.push(e.message);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"lastSeq":1}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const logs: string[] = [];
    const reporter = createRemoteReporter({ url, runId: 'r', config: {}, log: (l) => logs.push(l), flushMs: 10 });
    const messages = Array.from({ length: 20 }, (_, i) => `w${i}`);
    for (const m of messages) {
      reporter.onEvent({ type: 'run.warning', t: 0, message: m } as BenchEvent);
      await new Promise((r) => setTimeout(r, 2));
    }
    await reporter.close();
    server.close();
    expect(refusals).toBeLessThan(0); // it was refused twice
    expect(received).toEqual(messages);
    expect(logs).toEqual([]);
  });
});
