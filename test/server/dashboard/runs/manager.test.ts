import { afterEach, describe, expect } from 'vitest';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import type { FastifyInstance } from 'fastify';
import { fileURLToPath } from 'node:url';
import { test as it, type ServedApp } from '#test/helpers/fixtures.ts';
import type { AppOptions } from '#server/dashboard/app.ts';
import type { RunManager } from '#server/dashboard/runs/manager.ts';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { faultFlags } from '#server/dashboard/runs/faultFlags.ts';
import { EMBEDDED_BASE_URL, specToRunConfig } from '#shared/config/runSpec.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';

const FAKE = [process.execPath, '--import', 'tsx', fileURLToPath(new URL('./fakeTarget.ts', import.meta.url))];
let sse: TestServer | undefined;
afterEach(async () => {
  await sse?.close();
  sse = undefined;
});

const baseSpec = {
  metadata: {},
  model: 'm',
  backend: 'openai-chat-omni',
  endpoint: '/v1/chat/completions',
  dataset: { name: 'random', inputLen: 4, outputLen: 4 },
  numPrompts: 40,
  maxConcurrency: 4,
  requestRate: 'inf',
  burstiness: 1,
  selfTimed: false,
  seed: 0,
  numWarmups: 0,
  extraBody: {},
  timeouts: { totalS: 0.6 },
  failFast: true,
  thresholds: [],
  percentileMetrics: ['ttft', 'e2el'],
  metricPercentiles: [99],
};

/** A served dashboard whose run manager starts `targetCommand` as its embedded repro server. */
async function startApp(
  serveApp: (opts?: Partial<AppOptions>) => Promise<ServedApp>,
  targetCommand?: string[],
  logs: string[] = [],
): Promise<FastifyInstance> {
  const { app } = await serveApp({ manager: { targetCommand, log: (l) => logs.push(l) } });
  return app;
}

const eventTypes = async (app: FastifyInstance, id: string) =>
  (await app.inject({ url: `/api/runs/${id}/events?limit=50000` }))
    .json()
    .events.map((e: { event: { type: string; event?: { type: string } } }) =>
      e.event.type === 'telemetry' ? `telemetry:${e.event.event!.type}` : e.event.type,
    );

describe('run manager', () => {
  it('maps a spec to the engine config and the target flags', () => {
    // An embedded target's URL is set on the one config once its server listens.
    const c = specToRunConfig(CODE2WAV_HANG.spec, 'r1');
    expect(c).toMatchObject({
      runId: 'r1',
      target: { baseUrl: EMBEDDED_BASE_URL },
      workload: { numPrompts: 1088, extraBody: { modalities: ['text', 'audio'] } },
      dispatch: { maxConcurrency: 10 },
      limits: { failFast: true, timeouts: { totalS: 8 } },
    });
    expect(
      faultFlags([
        { phase: 'hift', kind: 'block', after: 3 },
        { phase: 'cfm', kind: 'slow', p: 0.5, minInflight: 2 },
      ]),
    ).toEqual(['--fault', 'hift:block:after=3', '--fault', 'cfm:slow:p=0.5:min-inflight=2']);
    expect(c.output.goodput).toBeUndefined();
    expect(specToRunConfig({ ...CODE2WAV_HANG.spec, goodput: { e2el: 2000 } }, 'r2').output.goodput).toEqual({
      e2el: 2000,
    });
    const url = { kind: 'url' as const, baseUrl: 'https://127.0.0.1:5' };
    expect(specToRunConfig({ ...CODE2WAV_HANG.spec, target: { ...url, insecure: true } }, 'r3').target.insecure).toBe(
      true,
    );
    expect(specToRunConfig({ ...CODE2WAV_HANG.spec, target: url }, 'r4').target.insecure).toBeUndefined();
  });

  it('a ramp-up run: the list shows the ramp as its rate, and the stored result has the ramp-up keys', async ({
    serveApp,
  }) => {
    sse = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const app = await startApp(serveApp);
    const spec = {
      ...baseSpec,
      numPrompts: 4,
      rampUp: { strategy: 'linear', startRps: 20, endRps: 40 },
      target: { kind: 'url', baseUrl: sse.url },
    };
    const r = await app.inject({ method: 'POST', url: '/api/runs', payload: spec });
    expect(r.statusCode, r.body).toBe(201);
    const { id } = r.json();
    await (app.runManager as RunManager).whenDone(id);
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d).toMatchObject({ status: 'finished', verdict: 'passed', requestRate: 'linear 20→40' });
    const result = (await app.inject({ url: `/api/runs/${id}/export?format=vllm` })).json();
    expect(result).toMatchObject({ ramp_up_strategy: 'linear', ramp_up_start_rps: 20, ramp_up_end_rps: 40 });
  });

  it('runs against a URL target: events flow into the hub, the run ends failed_closed and is stored', async ({
    serveApp,
  }) => {
    sse = await startSseServer((a) => (a.n < 6 ? { kind: 'ok', tokens: 3 } : { kind: 'hang' }));
    const app = await startApp(serveApp);
    const r = await app.inject({
      method: 'POST',
      url: '/api/runs',
      payload: { ...baseSpec, target: { kind: 'url', baseUrl: sse.url, apiKey: 'sk-secret' } },
    });
    expect(r.statusCode, r.body).toBe(201);
    const { id } = r.json();
    await (app.runManager as RunManager).whenDone(id);
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d).toMatchObject({
      status: 'finished',
      verdict: 'failed_closed',
      active: false,
      target: sse.url,
      breaker: { tripped: true },
    });
    expect(d.counts.completed).toBe(6);
    expect(sse.arrivals[0].headers.authorization).toBe('Bearer sk-secret'); // sent to the target...
    expect(JSON.stringify(d)).not.toContain('sk-secret'); // ...never shown
    expect(d.spec.target.apiKey).toBe('***');
    expect(JSON.stringify(sqliteOf(app.store).db.prepare('SELECT * FROM runs').all())).not.toContain('sk-secret'); // nor stored
    expect(d.counts.timedOut + d.counts.cancelledAfterTimeout).toBe(34);
    const types = await eventTypes(app, id);
    expect(types[0]).toBe('run.status');
    expect(types.slice(-2)).toEqual(['run.finished', 'run.status']);
    const exported = await app.inject({ url: `/api/runs/${id}/export?format=vllm` });
    const j = exported.json();
    expect(j).toMatchObject({ completed: 6, fail_fast_tripped: true });
    // The per-request arrays (vLLM --save-detailed), in dataset order, where vLLM puts them.
    const rows = (await app.inject({ url: `/api/runs/${id}/requests?limit=100` })).json().requests as {
      index: number;
      status: string;
      promptLen: number;
      error: string;
    }[];
    // A row per request: the unsent tail, one stored range (docs/design.md#bulk-unsent), is listed a row each.
    expect(rows).toHaveLength(40);
    for (const k of ['ttfts', 'itls', 'input_lens', 'output_lens', 'start_times', 'generated_texts', 'errors'])
      expect(j[k], k).toHaveLength(40);
    const unsentFrom = sqliteOf(app.store)
      .db.prepare('SELECT from_idx FROM request_ranges WHERE run_id = ?')
      .pluck()
      .get(id);
    expect(unsentFrom).toBeLessThan(40); // the tail was one stored range
    const sent = unsentFrom as number;
    for (let i = sent; i < 40; i++) {
      expect(j.statuses[i]).toBe('not_dispatched');
      expect(j.errors[i]).toMatch(/^not dispatched: /);
    }
    rows.forEach((r, i) => {
      expect(r.index).toBe(i);
      // A range carries no prompt lengths: its rows read 0 where the result keeps each request's.
      expect(r.promptLen).toBe(i < sent ? j.input_lens[i] : 0);
      expect(j.errors[i]).toBe(r.error);
      expect(j.statuses[i]).toBe(r.status);
      if (r.status === 'completed') {
        expect(j.ttfts[i]).toBeGreaterThan(0);
        expect(j.output_lens[i]).toBeGreaterThan(0);
        expect(j.itls[i].length).toBeGreaterThan(0);
        expect(j.generated_texts[i]).not.toBe('');
      } else expect(j.output_lens[i]).toBe(0);
    });
    const keys = Object.keys(j);
    expect(keys.indexOf('ttfts')).toBeGreaterThan(keys.indexOf('request_goodput'));
    expect(keys.indexOf('errors')).toBeLessThan(keys.indexOf('max_concurrent_requests'));
  });

  it('flushes the embedded repro server telemetry before finishing, then stops the target', async ({ serveApp }) => {
    const logs: string[] = [];
    const app = await startApp(serveApp, FAKE, logs);
    const spec = {
      ...baseSpec,
      target: {
        kind: 'embedded',
        faults: [{ phase: 'hift', kind: 'block', after: 2 }],
        watchdogTimeoutS: 0.2,
        workers: 1,
        maxBatch: 4,
      },
    };
    const { id } = (await app.inject({ method: 'POST', url: '/api/runs', payload: spec })).json();
    await (app.runManager as RunManager).whenDone(id);
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d.status).toBe('finished');
    expect(d.stallReports).toHaveLength(1); // arrived only during the flush
    expect(d.stallReports[0].report.stack[0].function).toBe('fakeBlock');
    const types = await eventTypes(app, id);
    expect(types.indexOf('telemetry:watchdog.stall')).toBeLessThan(types.indexOf('run.finished'));
    expect(logs.some((l) => l.includes('fake target args: faults=hift:block:after=2 watchdog=0.2 workers=1'))).toBe(
      true,
    );
    expect(d.config.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('cancels a run: in-flight requests are aborted and the run is recorded interrupted', async ({ serveApp }) => {
    sse = await startSseServer(() => ({ kind: 'hang' }));
    const app = await startApp(serveApp);
    const { id } = (
      await app.inject({
        method: 'POST',
        url: '/api/runs',
        payload: { ...baseSpec, timeouts: { totalS: 30 }, target: { kind: 'url', baseUrl: sse.url } },
      })
    ).json();
    await sse.waitForArrivals(4);
    expect((await app.inject({ method: 'POST', url: `/api/runs/${id}/cancel` })).statusCode).toBe(202);
    await (app.runManager as RunManager).whenDone(id);
    expect((await app.inject({ url: `/api/runs/${id}` })).json()).toMatchObject({
      status: 'interrupted',
      verdict: 'interrupted',
    });
  });

  it('closing the app records a live run as interrupted in order (not left for crash recovery)', async ({
    tempDir: dataDir,
    serveApp,
    newApp,
  }) => {
    sse = await startSseServer(() => ({ kind: 'hang' }));
    let { app } = await serveApp({ dataDir });
    const { id } = (
      await app.inject({
        method: 'POST',
        url: '/api/runs',
        payload: { ...baseSpec, timeouts: { totalS: 30 }, target: { kind: 'url', baseUrl: sse.url } },
      })
    ).json();
    await sse.waitForArrivals(4);
    await app.close();
    app = await newApp({ dataDir });
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d).toMatchObject({ status: 'interrupted', verdict: 'interrupted' });
    const types = await eventTypes(app, id);
    expect(types).toContain('run.finished'); // the engine's own partial result was recorded
    const last = (await app.inject({ url: `/api/runs/${id}/events?after=${d.lastSeq - 1}` })).json().events[0].event;
    expect(last).toMatchObject({ type: 'run.status', status: 'interrupted' });
    expect(last.message ?? '').not.toMatch(/stopped while this run was running/);
  });

  it('closing the app still flushes an embedded repro server: the stall report survives the shutdown', async ({
    tempDir: dataDir,
    serveApp,
    newApp,
  }) => {
    let { app } = await serveApp({ dataDir, manager: { targetCommand: FAKE } });
    const spec = {
      ...baseSpec,
      timeouts: { totalS: 30 },
      target: { kind: 'embedded', faults: [], watchdogTimeoutS: 1, workers: 1, maxBatch: 4 },
    };
    const { id } = (await app.inject({ method: 'POST', url: '/api/runs', payload: spec })).json();
    while (!(await eventTypes(app, id)).includes('request.sent')) await new Promise((r) => setTimeout(r, 20));
    await app.close();
    app = await newApp({ dataDir });
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d.status).toBe('interrupted');
    expect(d.stallReports).toHaveLength(1);
  });

  it('records a run whose embedded repro server cannot start as errored', async ({ serveApp }) => {
    const app = await startApp(serveApp, [process.execPath, '-e', 'process.exit(3)']);
    const { id } = (
      await app.inject({
        method: 'POST',
        url: '/api/runs',
        payload: {
          ...baseSpec,
          target: { kind: 'embedded', faults: [], watchdogTimeoutS: 0, workers: 1, maxBatch: 4 },
        },
      })
    ).json();
    await (app.runManager as RunManager).whenDone(id);
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d).toMatchObject({ status: 'errored', verdict: 'errored' });
    expect(d.error).toMatch(/embedded repro server did not start: it exited \(\d+\)/);
  });
});
