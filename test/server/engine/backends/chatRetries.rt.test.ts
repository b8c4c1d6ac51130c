/**
 * Which chat client retries a dropped connection (docs/design.md#retries): vLLM-Omni's
 * `async_request_openai_chat_omni_completions` retries a transport error (3 more attempts, 100 ms apart); vLLM's
 * own `async_request_openai_chat_completions`, which the `openai-chat` backend speaks for, has no retry loop — the
 * request fails at once. A loopback server drops the first connection it gets and answers the next.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** Drops the first request's connection; streams a one-token answer to every later one. */
async function dropsFirst(): Promise<{ url: string; seen: () => number }> {
  let seen = 0;
  const server = createServer((req, res) => {
    seen++;
    req.resume();
    if (seen === 1) {
      req.socket.destroy();
      return;
    }
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { choices: [{ index: 0, delta: { content: 'hi' } }], usage: { completion_tokens: 1 } };
      res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen: () => seen };
}

describe('a dropped connection', () => {
  for (const [backend, attempts, success] of [
    ['openai-chat', 1, false],
    ['openai-chat-omni', 2, true],
  ] as const)
    it(`${backend}: ${success ? 'retried, and the retry answers' : 'fails the request at once (no retry loop)'}`, async () => {
      const s = await dropsFirst();
      const config = testBenchConfig(s.url, { backend, numPrompts: 1, maxConcurrency: 1, timeouts: { totalS: 10 } });
      const out = await runBenchmark(config, { warmClient: false });
      const rec = out.records.at(0);
      expect(rec.attempts).toBe(attempts);
      expect(rec.success).toBe(success);
      expect(s.seen()).toBe(attempts);
    }, 30_000);
});
