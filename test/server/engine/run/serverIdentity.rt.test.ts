/**
 * The target's identity, read once at the start of a run against real
 * loopback servers: what a vLLM server answers, what a server without
 * /version answers, a server that never answers (the run waits no longer than
 * the bound) and an oversized answer (capped, not read whole).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { readServerIdentity } from '#server/engine/run/serverIdentity.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import type { BenchEvent, RunStarted } from '#shared/protocol/protocol.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const MODELS = { object: 'list', data: [{ id: 'openbmb/MiniCPM-o-4_5', object: 'model' }] };

describe('readServerIdentity', () => {
  it("reads a vLLM server's model list and version, sending the run's auth and headers", async () => {
    server = await startSseServer(() => ({ kind: 'ok' }), {
      getRoutes: { '/v1/models': MODELS, '/version': { version: '0.11.0' } },
    });
    const id = await readServerIdentity(testBenchConfig(server.url, { apiKey: 'sk-1', headers: { 'X-Tenant': 'ci' } }));
    expect(id).toEqual({ models: ['openbmb/MiniCPM-o-4_5'], version: '0.11.0', notes: [] });
    expect(server.arrivals).toHaveLength(0); // GETs are not benchmark requests
    expect(server.gets.map((g) => g.path).sort()).toEqual(['/v1/models', '/version']);
    for (const g of server.gets) expect(g.headers).toMatchObject({ authorization: 'Bearer sk-1', 'x-tenant': 'ci' });
  });

  it('a server without /version: the model list alone, and why the version is missing', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }), { getRoutes: { '/v1/models': MODELS } });
    expect(await readServerIdentity(testBenchConfig(server.url))).toEqual({
      models: ['openbmb/MiniCPM-o-4_5'],
      version: null,
      notes: ['/version: HTTP 404'],
    });
  });

  it('a server that never answers costs no more than the bound; an oversized answer is cut off', async () => {
    const big = { data: Array.from({ length: 5000 }, (_, i) => ({ id: `model-${i}` })) };
    server = await startSseServer(() => ({ kind: 'ok' }), { getRoutes: { '/v1/models': big, '/version': 'hang' } });
    const t0 = performance.now();
    const id = await readServerIdentity(testBenchConfig(server.url), { timeoutMs: 300, maxBytes: 4096 });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(id).toEqual({
      models: null,
      version: null,
      notes: ['/v1/models: the body is over 4096 bytes', '/version: no answer in time'],
    });
  });
});

describe('runBenchmark records the identity', () => {
  it('in run.started and in the result as server_identity', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }), {
      getRoutes: { '/v1/models': MODELS, '/version': { version: '0.11.0' } },
    });
    const events: BenchEvent[] = [];
    const out = await runBenchmark(testBenchConfig(server.url, { serverIdentity: true }), {
      onEvent: (e) => events.push(e),
      warmClient: false,
    });
    const expected = { models: ['openbmb/MiniCPM-o-4_5'], version: '0.11.0', notes: [] };
    expect((events.find((e) => e.type === 'run.started') as RunStarted).serverIdentity).toEqual(expected);
    expect(out.result.server_identity).toEqual(expected);
    expect(out.summary.verdict).toBe('passed');
  });

  // Caught: a 404 from a model-name mismatch said only "Not Found"; the identity showed the server's model, unflagged.
  it('a 404 says its status and body line; a model the server does not list is a warning in the verdict reasons', async () => {
    server = await startSseServer(() => ({ kind: 'status', status: 404 }), { getRoutes: { '/v1/models': MODELS } });
    const events: BenchEvent[] = [];
    const out = await runBenchmark(testBenchConfig(server.url, { serverIdentity: true }), {
      onEvent: (e) => events.push(e),
      warmClient: false,
    });
    expect(out.summary.verdict).toBe('failed');
    expect(out.summary.verdictReasons).toContain(
      "warning: model mismatch: the run requested m, but the server's /v1/models lists openbmb/MiniCPM-o-4_5",
    );
    // The failed request says what the server answered, beside vLLM's reason phrase.
    const failed = events.find((e) => e.type === 'request.failed') as Extract<BenchEvent, { type: 'request.failed' }>;
    expect(failed.outcome.error).toBe('Not Found');
    expect(failed.outcome.http).toEqual({ status: 404, bodyLine: '{"error":{"message":"test error","code":404}}' });
    expect(out.result.verdict_reasons).toContain(
      "warning: model mismatch: the run requested m, but the server's /v1/models lists openbmb/MiniCPM-o-4_5",
    );
  });

  it('serverIdentity: false reads nothing', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }), { getRoutes: { '/v1/models': MODELS } });
    const events: BenchEvent[] = [];
    const out = await runBenchmark(testBenchConfig(server.url), { onEvent: (e) => events.push(e), warmClient: false });
    expect((events.find((e) => e.type === 'run.started') as RunStarted).serverIdentity).toBeUndefined();
    expect(out.result).not.toHaveProperty('server_identity');
  });
});
