/** A hostile stream fails its own request clearly and cannot take the client down (docs/design.md#stream). */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { DONE, roleEvent, sse, textEvent } from '#test/helpers/sse.ts';
import { runDispatch } from '#server/engine/dispatch/dispatch.ts';
import { MAX_COMPLETION_TOKENS } from '#server/engine/transport/reading/streamParser.ts';
import { harness } from '#test/helpers/dispatchHarness.ts';

let server: TestServer | null = null;
let plain: Server | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  if (plain) await new Promise<void>((r) => plain!.close(() => r()));
  plain = null;
});

describe('hostile streams', () => {
  it('a token count of 1e9 in one event fails that request with a clear error, no billion-entry ITL array', async () => {
    const huge = sse({
      choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }],
      usage: { prompt_tokens: 1, completion_tokens: 1e9, total_tokens: 1e9 + 1 },
      modality: 'text',
    });
    server = await startSseServer((a) =>
      a.n === 0 ? { kind: 'raw', chunks: [roleEvent(), textEvent('a', 1), huge, DONE] } : { kind: 'ok', tokens: 3 },
    );
    const h = harness(server.url, [0, 0], {});
    const r = await runDispatch(h.input);
    await h.agent.destroy();
    const bad = [...r.statuses].indexOf('failed');
    expect(bad).toBeGreaterThanOrEqual(0);
    expect([...r.statuses].filter((s) => s === 'completed')).toHaveLength(1);
    expect(r.records.at(bad)!.errorCode).toBe('REQ_TOKEN_BOUND');
    expect(r.records.at(bad)!.error).toContain(`completion_tokens = 1000000000 exceeds ${MAX_COMPLETION_TOKENS}`);
    expect(r.records.at(bad)!.itl.length).toBeLessThan(10);
  });

  it('a 200 text/html page with no SSE event fails: "response is not an event stream: text/html"', async () => {
    plain = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<html><body>502 from a proxy</body></html>');
      });
    });
    await new Promise<void>((r) => plain!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    const h = harness(url, [0], {});
    const r = await runDispatch(h.input);
    await h.agent.destroy();
    expect([...r.statuses]).toEqual(['failed']);
    expect(r.records.at(0)!.error).toBe('response is not an event stream: text/html');
    expect(r.records.at(0)!.errorCode).toBe('REQ_NOT_EVENT_STREAM');
  });
});
