import { describe, expect } from 'vitest';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { CODE2WAV_HANG, SEED_TTS_URL } from '#shared/config/presets.ts';
import { recordRun, scriptedManager } from '#test/helpers/dashboardApp.ts';
import { completedRequest } from '#test/helpers/sampleEvents.ts';

const urlSpec = { ...SEED_TTS_URL.spec, dataset: { name: 'random', inputLen: 8, outputLen: 4 }, numPrompts: 4 };

describe('POST /api/runs', () => {
  it('refuses invalid specs with a 400 naming the field, and starts nothing', async ({ newApp }) => {
    let engineCalls = 0;
    const app = await newApp({
      manager: {
        engine: async () => {
          engineCalls++;
          throw new Error('must not run');
        },
      },
    });
    const cases: [unknown, string][] = [
      [{ ...urlSpec, numPrompts: 0 }, 'numPrompts'],
      [{ ...urlSpec, maxConcurrency: 0 }, 'maxConcurrency'],
      [{ ...urlSpec, requestRate: -1 }, 'requestRate'],
      [{ ...urlSpec, burstiness: 0 }, 'burstiness'],
      [{ ...urlSpec, failFast: true, timeouts: { totalS: 0 } }, 'timeouts.totalS'],
      [{ ...urlSpec, backend: 'openai-completions' }, 'backend'],
      [{ ...urlSpec, selfTimed: true }, 'selfTimed'],
      [{ ...urlSpec, target: { kind: 'url', baseUrl: 'not a url' } }, 'target.baseUrl'],
      [{ ...urlSpec, target: { kind: 'gpu' } }, 'target.kind'],
      [{ ...urlSpec, surprise: 1 }, 'surprise'],
      [{ ...urlSpec, thresholds: ['mean_ttft_ms <<= 3'] }, 'thresholds.0'],
      [
        {
          ...CODE2WAV_HANG.spec,
          target: { ...CODE2WAV_HANG.spec.target, faults: [{ phase: 'vocoder', kind: 'block' }] },
        },
        'target.faults.0.phase',
      ],
      [
        { ...urlSpec, dataset: { name: 'seed-tts', path: '/nonexistent/seed-tts', locale: 'en', noOversample: true } },
        'dataset.path',
      ],
      [{ ...urlSpec, requestRate: 5, rampUp: { strategy: 'linear', startRps: 1, endRps: 4 } }, 'requestRate'],
      [{ ...urlSpec, rampUp: { strategy: 'linear', startRps: 9, endRps: 4 } }, 'rampUp.startRps'],
      [{ ...urlSpec, seed: -1 }, 'seed'],
      [{ ...urlSpec, goodput: { ttft: -5 } }, 'goodput.ttft'],
      [[1, 2], ''],
    ];
    for (const [payload, field] of cases) {
      const r = await app.inject({ method: 'POST', url: '/api/runs', payload: payload as object });
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      const body = r.json();
      expect(body.code).toMatch(/^CONFIG_|^API_BAD_REQUEST$/);
      if (field) expect(body.field, r.body).toBe(field);
      expect(body.message.length).toBeGreaterThan(5);
    }
    expect(engineCalls).toBe(0);
    expect(sqliteOf(app.store).runs.list({ limit: 10, offset: 0 }).total).toBe(0);
  });

  it('starts a valid spec (defaults filled in) and returns its id and warnings', async ({ newApp }) => {
    let mgr!: ReturnType<typeof scriptedManager>;
    const app = await newApp({ runManager: (hub) => (mgr = scriptedManager(hub)) });
    const spec = {
      target: { kind: 'embedded', watchdogTimeoutS: 500 },
      dataset: { name: 'random' },
      timeouts: { totalS: 900 },
    };
    const r = await app.inject({ method: 'POST', url: '/api/runs', payload: spec });
    expect(r.statusCode).toBe(201);
    expect(r.json().id).toBe('scripted-1');
    expect(r.json().warnings[0]).toMatchObject({ field: 'target.watchdogTimeoutS', severity: 'warning' });
    expect(mgr.started[0]).toMatchObject({
      numPrompts: 1088,
      maxConcurrency: 10,
      requestRate: 'inf',
      target: { workers: 1, faults: [] },
    });
  });
});

describe('reading runs', () => {
  it('lists with paging and filters by verdict, status, text and metadata', async ({ app }) => {
    recordRun(app.hub, 'run-a', undefined, { metadata: { build: '101', node: 'mi300-3' } });
    recordRun(app.hub, 'run-b', completedRequest('run-b', 0), { metadata: { build: '102' } });
    const all = (await app.inject({ url: '/api/runs?limit=1' })).json();
    expect(all.total).toBe(2);
    expect(all.runs).toHaveLength(1);
    const byMeta = (await app.inject({ url: '/api/runs?metadata=build%3D101' })).json();
    expect(byMeta.runs.map((r: { id: string }) => r.id)).toEqual(['run-a']);
    expect(byMeta.runs[0]).toMatchObject({
      verdict: 'failed_closed',
      stallCount: 1,
      stallPhase: 'hift',
      counts: { timedOut: 1, unsent: 2 },
      breaker: { tripped: true },
    });
    expect((await app.inject({ url: '/api/runs?verdict=failed_closed' })).json().total).toBe(1);
    expect((await app.inject({ url: '/api/runs?q=run-b' })).json().runs[0].id).toBe('run-b');
    expect((await app.inject({ url: '/api/runs?metadata=build%3D101&metadata=node%3Dother' })).json().total).toBe(0);
    expect((await app.inject({ url: '/api/runs?status=finished' })).json().total).toBe(2);
    for (const bad of [
      '/api/runs?limit=0',
      '/api/runs?limit=9999',
      '/api/runs?offset=-1',
      '/api/runs?metadata=nokey',
    ]) {
      const r = await app.inject({ url: bad });
      expect(r.statusCode, bad).toBe(400);
      expect(r.json().code).toBe('API_BAD_REQUEST');
    }
  });

  it('returns a run with its stall reports, paged requests and events after a seq', async ({ app }) => {
    recordRun(app.hub, 'run-c');
    const d = (await app.inject({ url: '/api/runs/run-c' })).json();
    expect(d).toMatchObject({ id: 'run-c', status: 'finished', verdict: 'failed_closed', active: false, lastSeq: 24 });
    expect(d.stallReports[0].report.stack[0].function).toBe('blockForever');
    expect(d.breaker.cause).toMatchObject({ requestIndex: 2, lastPhase: 'hift' });
    const reqs = (await app.inject({ url: '/api/runs/run-c/requests?offset=2&limit=2' })).json();
    expect(reqs.total).toBe(6);
    expect(reqs.requests.map((r: { status: string }) => r.status)).toEqual(['timed_out', 'cancelled_after_timeout']);
    expect(reqs.requests[0]).toMatchObject({ index: 2, timeoutKind: 'total', sentT: 11, queuedT: 10 });
    const ev = (await app.inject({ url: '/api/runs/run-c/events?after=20&limit=3' })).json();
    expect(ev.events.map((e: { seq: number }) => e.seq)).toEqual([21, 22, 23]);
    expect(ev.more).toBe(true);
    expect(ev.lastSeq).toBe(23);
    const tail = (await app.inject({ url: '/api/runs/run-c/events?after=23' })).json();
    expect(tail.events[0].event).toMatchObject({ type: 'run.status', status: 'finished' });
    expect(tail.more).toBe(false);
    for (const u of ['/api/runs/nope', '/api/runs/nope/requests', '/api/runs/nope/events'])
      expect((await app.inject({ url: u })).statusCode).toBe(404);
    expect((await app.inject({ url: '/api/runs/run-c/events?after=x' })).statusCode).toBe(400);
  });
});

describe('cancel and delete', () => {
  it('cancels a live run, refuses to delete it while live, deletes it afterwards', async ({ newApp }) => {
    const app = await newApp({ runManager: (hub) => scriptedManager(hub) });
    const { id } = (
      await app.inject({
        method: 'POST',
        url: '/api/runs',
        payload: { target: { kind: 'embedded' }, dataset: { name: 'random' } },
      })
    ).json();
    expect((await app.inject({ method: 'DELETE', url: `/api/runs/${id}` })).statusCode).toBe(409);
    expect((await app.inject({ method: 'POST', url: `/api/runs/${id}/cancel` })).statusCode).toBe(202);
    expect((await app.inject({ url: `/api/runs/${id}` })).json()).toMatchObject({
      status: 'interrupted',
      verdict: 'interrupted',
      active: false,
    });
    expect((await app.inject({ method: 'POST', url: `/api/runs/${id}/cancel` })).statusCode).toBe(409);
    expect((await app.inject({ method: 'POST', url: '/api/runs/ghost/cancel' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: `/api/runs/${id}` })).json()).toEqual({ id });
    expect((await app.inject({ url: `/api/runs/${id}` })).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: `/api/runs/${id}` })).statusCode).toBe(404);
  });
});
