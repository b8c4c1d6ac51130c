/**
 * Allowed-size bodies must not freeze the dashboard: while a 28 MB vLLM
 * result (400,000 requests) is imported, or 15 MB of ingest NDJSON (good or
 * bad lines) is taken in, the event loop stays free (measured with
 * monitorEventLoopDelay), other requests are answered and the import is
 * complete and correct once it returns. Bounds are generous for a busy 2-core
 * machine (the old code held the loop for 27-62 s); the tight targets are in
 * `npm run bench dashboard`.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { completedRequest, newRun, runStarted } from '#test/helpers/sampleEvents.ts';
import { bigIngest, bigVllmResult } from '#test/helpers/bigInputs.ts';

/** Runs `work` while measuring the event loop's worst delay and answering /api/presets alongside. */
async function whileMeasuring<T>(a: FastifyInstance, work: () => Promise<T>) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let side = 0;
  let running = true;
  /** The longest wait between two answers of the side traffic (the loop held by the work, whatever the histogram saw). */
  const gaps = { last: performance.now(), max: 0 };
  const sideTraffic = (async () => {
    while (running) {
      const r = await a.inject({ url: '/api/presets' });
      expect(r.statusCode).toBe(200);
      side++;
      gaps.max = Math.max(gaps.max, performance.now() - gaps.last);
      gaps.last = performance.now();
      await new Promise((res) => setTimeout(res, 5));
    }
  })();
  const result = await work();
  gaps.max = Math.max(gaps.max, performance.now() - gaps.last);
  running = false;
  await sideTraffic;
  h.disable();
  return { result, maxDelayMs: h.max / 1e6, side, maxGapMs: gaps.max };
}

const MAX_LOOP_DELAY_MS = 1500;

/**
 * Times every synchronous store step (each statement run, each transaction) from now on and records the longest
 * string any one of them bound: a large import must be written as many short steps, never one long one.
 */
function watchStoreSteps(a: FastifyInstance) {
  const db = sqliteOf(a.store).db;
  const steps = { maxMs: 0, maxWhat: '', maxChars: 0 };
  const timed =
    <A extends unknown[], R>(what: string, fn: (...args: A) => R) =>
    (...args: A): R => {
      for (const v of args) if (typeof v === 'string') steps.maxChars = Math.max(steps.maxChars, v.length);
      const t0 = performance.now();
      try {
        return fn(...args);
      } finally {
        const ms = performance.now() - t0;
        if (ms > steps.maxMs) Object.assign(steps, { maxMs: ms, maxWhat: what });
      }
    };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const st = prepare(sql);
    st.run = timed(sql, st.run.bind(st)) as typeof st.run;
    return st;
  }) as typeof db.prepare;
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) =>
    timed('a transaction', transaction(fn))) as unknown as typeof db.transaction;
  return steps;
}

/**
 * No single store step of an import may hold the loop longer than this: a 2,000-row slice takes ~10-30 ms on a
 * busy machine, the old one-row write of a 28 MB result 80-100 ms. The size bound below is the exact check.
 */
const MAX_STORE_STEP_MS = 60;
/** Nor bind a value larger than this: the 28 MB result is written in ~1 MB parts. */
const MAX_STORE_VALUE_CHARS = 2 * 1024 * 1024;

describe('large bodies do not freeze the dashboard', () => {
  it('a 28 MB vLLM result with 400,000 requests: the loop stays free, and the import is whole', async ({ app: a }) => {
    const body = bigVllmResult(400_000);
    expect(body.length).toBeGreaterThan(27.5 * 1024 * 1024);
    const { result, maxDelayMs, side } = await whileMeasuring(a, () =>
      a.inject({ method: 'POST', url: '/api/import', headers: { 'content-type': 'application/json' }, payload: body }),
    );
    expect(result.statusCode, result.body.slice(0, 300)).toBe(201);
    expect(maxDelayMs).toBeLessThan(MAX_LOOP_DELAY_MS);
    expect(side).toBeGreaterThan(5);
    const id = result.json().runs[0].id as string;
    const d = (await a.inject({ url: `/api/runs/${id}` })).json();
    expect(d).toMatchObject({ status: 'finished', verdict: 'passed', counts: { completed: 400_000 } });
    const rows = (await a.inject({ url: `/api/runs/${id}/requests?offset=399999&limit=1` })).json();
    expect(rows.total).toBe(400_000);
    expect(rows.requests[0]).toMatchObject({ index: 399_999, status: 'completed', outputTokens: 3 });
  }, 120_000);

  it('a 28 MB vLLM result is stored in short synchronous steps, and exported whole from them', async ({ app }) => {
    const body = bigVllmResult(400_000);
    const steps = watchStoreSteps(app);
    const result = await app.inject({
      method: 'POST',
      url: '/api/import',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    expect(result.statusCode, result.body.slice(0, 300)).toBe(201);
    expect(steps.maxChars).toBeLessThanOrEqual(MAX_STORE_VALUE_CHARS);
    expect(steps.maxMs, `longest store step: ${steps.maxWhat.slice(0, 120)}`).toBeLessThan(MAX_STORE_STEP_MS);
    const id = result.json().runs[0].id as string;
    const exported = await app.inject({ url: `/api/runs/${id}/export?format=vllm` });
    expect(exported.statusCode).toBe(200);
    const o = JSON.parse(exported.body.replace(/\bNaN\b|\bInfinity\b/g, 'null')) as Record<string, unknown[]>;
    expect(o.ttfts).toHaveLength(400_000);
    expect(o.ttfts[399_999]).toBeCloseTo(0.01 + (399_999 % 97) / 1000 + 399_999 * 1e-11, 9);
    expect(o.itls[399_999]).toEqual([0.002 + (399_999 % 13) / 10000, 0.00213]);
  }, 120_000);

  it('15 MB of ingest NDJSON, good lines then bad lines: the loop stays free, every line is counted', async ({
    app,
  }) => {
    sqliteOf(app.store).runs.insertRun(newRun('ing'));
    app.hub.open('ing', null);
    const a = app;
    for (const bad of [false, true]) {
      const body = bigIngest('ing', 15 * 1024 * 1024, bad);
      const lines = body.split('\n').filter(Boolean).length;
      const { result, maxDelayMs } = await whileMeasuring(a, () =>
        a.inject({
          method: 'POST',
          url: '/api/ingest?runId=ing',
          headers: { 'content-type': 'application/x-ndjson' },
          payload: body,
        }),
      );
      expect(result.statusCode).toBe(200);
      const r = result.json();
      expect(r.accepted + r.rejected).toBe(lines);
      expect(bad ? r.rejected : r.accepted).toBe(lines);
      expect(maxDelayMs).toBeLessThan(MAX_LOOP_DELAY_MS);
    }
  }, 120_000);
});

describe('a large reported batch does not freeze the dashboard', () => {
  it('100,000 events on /api/runs/:id/events are checked and folded in slices: the loop is held no longer than parsing the body', async ({
    app,
  }) => {
    const N = 25_000;
    const created = await app.inject({
      method: 'POST',
      url: '/api/runs/external',
      payload: { runId: 'big', config: {} },
    });
    expect(created.statusCode).toBe(201);
    const started = await app.inject({
      method: 'POST',
      url: '/api/runs/big/events',
      payload: { events: [runStarted('big', N)] },
    });
    expect(started.statusCode).toBe(200);
    const events = Array.from({ length: N }, (_, i) => completedRequest('big', i)).flat();
    expect(events).toHaveLength(100_000);
    const body = JSON.stringify({ events });
    // What no slicing can avoid: the body is parsed in one go (Fastify's JSON parser), measured here in the same run.
    const t0 = performance.now();
    JSON.parse(body);
    const parseMs = performance.now() - t0;
    const { result, maxGapMs, side } = await whileMeasuring(app, () =>
      app.inject({
        method: 'POST',
        url: '/api/runs/big/events',
        headers: { 'content-type': 'application/json' },
        payload: body,
      }),
    );
    expect(result.statusCode, result.body).toBe(200);
    console.log(
      `100,000-event batch: parse ${parseMs.toFixed(0)} ms, longest wait of other requests ${maxGapMs.toFixed(0)} ms, ${side} answered`,
    );
    // Checked and folded in slices, other requests are answered throughout (before: once the whole batch was
    // checked, folded and queued, in one stretch of 3-4 parses). The longest wait is the request's own read and
    // parse, a slice and the collection of what they left: under stress-ng it read 477 ms beside a 199 ms parse
    // (1.5 parses and 100 ms failed it), so two parses and 150 ms; a stretch of 3-4 parses still fails.
    expect(side).toBeGreaterThan(10);
    expect(maxGapMs).toBeLessThan(2 * parseMs + 150);
    const run = (await app.inject({ url: '/api/runs/big' })).json<{ counts: { completed: number } }>();
    expect(run.counts.completed).toBe(N);
  }, 120_000);
});
