/**
 * A connection that ends normally costs no stack (docs/design.md#normal-close):
 * undici ends every connection with an error object (a connection per
 * request: `InformationalError('reset')` right after the response), and
 * Node's stream destroy formats its stack at once; the engine switches stack
 * capture off for that moment. Counted here through the one hook every
 * formatted stack goes through (`Error.prepareStackTrace`): undici's errors
 * (code `UND_ERR…`) with captured frames during a normal run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import type { BenchConfig } from '#server/engine/config.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

interface Formatted {
  withFrames: string[];
  stackless: number;
}

/** Runs `fn` with every formatted stack of an undici error recorded: with frames (their first lines) or without. */
async function watchUndiciStacks(fn: () => Promise<void>): Promise<Formatted> {
  const seen: Formatted = { withFrames: [], stackless: 0 };
  const original = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  Error.prepareStackTrace = (err: Error & { code?: unknown }, frames: NodeJS.CallSite[]) => {
    if (String(err.code).startsWith('UND_ERR')) {
      if (frames.length > 0) seen.withFrames.push(`${err.name}: ${err.message} at ${String(frames[0])}`);
      else seen.stackless++;
    }
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
const config = (url: string, over: Partial<BenchConfig>): BenchConfig =>
  testBenchConfig(url, { runId: 'close', numPrompts: N, maxConcurrency: 3, ...over });
/** The client warm-up's own loopback requests are not the run's: left out of the count. */
const opts = { warmClient: false };

describe('a normal end of a connection', () => {
  it('a connection per request: one stackless error per request, none with a stack', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }));
    const limit = Error.stackTraceLimit;
    const seen = await watchUndiciStacks(async () => {
      const out = await runBenchmark(config(server!.url, { connectionMode: 'per_request' }), opts);
      expect(out.summary.counts.completed).toBe(N);
    });
    expect(seen.withFrames).toEqual([]);
    expect(seen.stackless).toBe(N); // undici's reset error per connection, formatted by Node's destroy
    expect(Error.stackTraceLimit).toBe(limit); // capture is back on for everything else
  });

  it('keep-alive against a server that says Connection: close: none with a stack', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }), { closeEach: true });
    const seen = await watchUndiciStacks(async () => {
      const out = await runBenchmark(config(server!.url, { connectionMode: 'keep_alive' }), opts);
      expect(out.summary.counts.completed).toBe(N);
    });
    expect(seen.withFrames).toEqual([]);
    expect(seen.stackless).toBe(N);
  });

  it('an error that is not a normal end keeps its stack', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }));
    await runBenchmark(config(server.url, { connectionMode: 'per_request', numPrompts: 2 }), opts);
    await Promise.resolve(); // the microtask that restores capture
    expect(new Error('later').stack).toMatch(/\n\s+at /);
  });
});
