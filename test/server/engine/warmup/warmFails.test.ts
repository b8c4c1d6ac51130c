/**
 * The client warm-up is best effort (warmClient.ts): when its own loopback
 * server cannot start (here its TLS server refuses the certificate, as an
 * OpenSSL configured to reject it would; or a listen failing with EMFILE),
 * the run goes on without the warm-up instead of failing. Its own file: the
 * warm-up runs once per process.
 */
import type * as Tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { WARM_TLS } from '#server/engine/transport/loopback/loopbackTls.ts';

vi.mock('node:tls', async (importOriginal) => {
  const tls = await importOriginal<typeof Tls>();
  const createServer = (...args: Parameters<typeof tls.createServer>): ReturnType<typeof tls.createServer> => {
    // Only the warm-up's own server (the test's target passes a copy of the certificate).
    if (args[0] === WARM_TLS) throw new Error('warm-up server refused');
    return tls.createServer(...args);
  };
  return { ...tls, default: { ...tls, createServer }, createServer };
});

let server: TestServer;
beforeAll(async () => {
  server = await startSseServer(() => ({ kind: 'ok', tokens: 4 }), { tls: { ...WARM_TLS } });
});
afterAll(() => server?.close());

describe('client warm-up whose server cannot start', () => {
  it('the run completes without it', async () => {
    const out = await runBenchmark(testBenchConfig(server.url, { runId: 'warmfails', insecure: true }));
    expect(out.summary.counts.completed).toBe(3);
  });
});
