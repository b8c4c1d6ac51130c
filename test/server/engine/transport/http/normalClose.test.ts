/**
 * A connection that ends normally costs no error object
 * (docs/design.md#normal-close). With undici, every connection that ended
 * after its response (a connection per request, or a server's
 * `Connection: close`) was destroyed with a fresh `InformationalError('reset')`
 * whose stack Node's stream destroy formatted at once — a tenth of the whole
 * process's CPU per request. The run's own client (http/h1/) builds an error
 * only when something failed. Counted here through the one hook every
 * formatted stack goes through (`Error.prepareStackTrace`): every error of
 * any kind formatted during a normal run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Runs `fn` with every formatted stack recorded (its error's first line). */
async function watchStacks(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const original = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  Error.prepareStackTrace = (err: Error) => {
    seen.push(`${err.name}: ${err.message}`);
    return `${err.name}: ${err.message}`;
  };
  try {
    await fn();
  } finally {
    if (original) Object.defineProperty(Error, 'prepareStackTrace', original);
    else delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
  }
  return seen;
}

const N = 12;
const config = (url: string, over: Partial<FlatBenchConfig>): RunConfig =>
  testBenchConfig(url, { runId: 'close', numPrompts: N, maxConcurrency: 3, ...over });
/** The client warm-up's own loopback requests are not the run's: left out of the count. */
const opts = { warmClient: false };

describe('a normal end of a connection', () => {
  it('a connection per request: no error formatted over the run', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }));
    const seen = await watchStacks(async () => {
      const out = await runBenchmark(config(server!.url, { connectionMode: 'per_request' }), opts);
      expect(out.summary.counts.completed).toBe(N);
    });
    expect(server.closedAtMs).toHaveLength(N); // N connections, each ended after its response
    expect(seen).toEqual([]);
  });

  it('keep-alive against a server that says Connection: close: no error formatted either', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }), { closeEach: true });
    const seen = await watchStacks(async () => {
      const out = await runBenchmark(config(server!.url, { connectionMode: 'keep_alive' }), opts);
      expect(out.summary.counts.completed).toBe(N);
    });
    expect(server.closedAtMs).toHaveLength(N);
    expect(seen).toEqual([]);
  });

  it('the control: the hook sees an error formatted during a run', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }));
    const seen = await watchStacks(async () => {
      await runBenchmark(config(server!.url, { connectionMode: 'per_request', numPrompts: 1 }), opts);
      void new Error('formatted on purpose').stack;
    });
    expect(seen).toEqual(['Error: formatted on purpose']);
  });
});
