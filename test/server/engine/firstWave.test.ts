/**
 * The first wave starts its requests one after another within one turn of
 * the event loop, each once the previous one's connect is issued, as
 * vLLM's asyncio loop starts its tasks (dispatch.ts): started together,
 * every first-wave request waited for all the others' set-up before any
 * connected; a turn between starts would let answers in before later
 * first-wave requests start, which no asyncio client does.
 */
import { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const config = (url: string, over: Partial<FlatBenchConfig>): RunConfig =>
  testBenchConfig(url, {
    runId: 'fw',
    numPrompts: 12,
    maxConcurrency: 4,
    dataset: { name: 'random', inputLen: 8, outputLen: 8 },
    ...over,
  });

/**
 * For each first-wave request after the first: was the previous request's connect already
 * issued (its socket has a local port: the kernel gives one at connect) when this one was sent?
 * Last: were all four sent in one turn of the event loop (as asyncio starts its tasks)?
 */
async function previousConnected(over: Partial<FlatBenchConfig>): Promise<boolean[]> {
  server = await startSseServer(() => ({ kind: 'ok', tokens: 4 }));
  // Every socket as its connect is called: made by net.connect, or made before the clock and connected by the run.
  const connect = vi.spyOn(Socket.prototype, 'connect');
  const connected = (): Socket[] => [...new Set(connect.mock.contexts as Socket[])];
  const seen: boolean[] = [];
  let turned = false;
  try {
    const cfg = config(server.url, over);
    const out = await runBenchmark(cfg, {
      warmClient: false,
      onEvent: (e) => {
        if (e.type !== 'request.sent' || e.index >= 4) return;
        if (e.index > 0) seen.push(connected()[e.index - 1]?.localPort !== undefined);
        // A turn of the event loop between first-wave starts would let answers in between.
        if (e.index === 0) setImmediate(() => (turned = true));
        if (e.index === 3) seen.push(!turned);
      },
    });
    expect(out.summary.counts.completed).toBe(cfg.workload.numPrompts);
  } finally {
    connect.mockRestore();
  }
  return seen;
}

describe('the first wave starts as an asyncio loop starts its tasks', () => {
  it('a connection per request: each request connects before the next one is sent', async () => {
    expect(await previousConnected({ connectionMode: 'per_request' })).toEqual([true, true, true, true]);
  });

  it('with fewer requests than slots, too', async () => {
    expect(await previousConnected({ connectionMode: 'per_request', numPrompts: 4, maxConcurrency: 8 })).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });
});
