/**
 * Retention (docs/design.md#retention): which runs lose their request rows and
 * events, what every pruned run keeps, pinning, and the bounded batches. On
 * the store of test/helpers/fleetStore.ts, reached through its interfaces.
 */
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { test as it } from '#test/helpers/fixtures.ts';
import { fleetAppOptions, seedRun } from '#test/helpers/fleetStore.ts';
import { Pruner } from '#server/dashboard/retention/pruner.ts';
import type { RetentionStore } from '#server/dashboard/store/common/retention.ts';
import { completedRequest, runStarted } from '#test/helpers/sampleEvents.ts';

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

/** What a run holds now, as the REST API shows it. */
async function held(app: FastifyInstance, id: string) {
  const detail = (await app.inject({ url: `/api/runs/${id}` })).json();
  const events = (await app.inject({ url: `/api/runs/${id}/events` })).json();
  const requests = (await app.inject({ url: `/api/runs/${id}/requests` })).json();
  return { detail, events: events.events.length as number, requests: requests.total as number };
}

describe('retention', () => {
  it('--retain-runs prunes the older runs rows and events, keeping summary, result, verdict, metadata and stall evidence', async ({
    newApp,
  }) => {
    const app = await newApp(fleetAppOptions({ retention: { policy: { retainDays: null, retainRuns: 2 } } }));
    await seedRun(app, 'old', NOW - 30 * DAY, { metadata: { ci_pipeline: 'nightly', ci_node: 'n1' } });
    await seedRun(app, 'pinned', NOW - 20 * DAY);
    await seedRun(app, 'mid', NOW - 10 * DAY);
    await seedRun(app, 'new', NOW - DAY);
    // A run still live (older than all) is never pruned, whatever the policy says.
    await seedRun(app, 'live', NOW - 40 * DAY, { events: [runStarted('live', 1, NOW - 40 * DAY)], finish: false });
    await app.store.runWrites.update('old', { result: { date: '20240101-000000', completed: 2 } });
    expect((await app.inject({ method: 'POST', url: '/api/runs/pinned/pin' })).json()).toEqual({
      id: 'pinned',
      pinned: true,
    });
    const before = await held(app, 'old');
    expect(before.events).toBeGreaterThan(20);
    expect(before.requests).toBe(6);

    await app.pruner.sweep();

    const old = await held(app, 'old');
    expect(old.events).toBe(0);
    expect(old.requests).toBe(0);
    // Nothing is left to page through: a client looping on `more` stops.
    expect((await app.inject({ url: '/api/runs/old/events' })).json()).toMatchObject({ events: [], more: false });
    expect(old.detail.prunedAtMs).toEqual(expect.any(Number));
    expect(old.detail.pinned).toBe(false);
    // Kept: the row's summary, counts and verdict, metadata, stall evidence, first timeout, result file.
    for (const k of ['verdict', 'counts', 'metadata', 'stallReports', 'firstTimeout', 'summary'] as const)
      expect(old.detail[k], k).toEqual(before.detail[k]);
    expect(old.detail.stallReports).toHaveLength(1);
    expect(old.detail.firstTimeout).not.toBeNull();
    expect(await app.store.runReads.result('old')).toEqual({ date: '20240101-000000', completed: 2 });
    const board = (await app.inject({ url: '/api/stalls' })).json();
    expect(board.groups[0].runs).toContain('old');
    expect((await app.inject({ url: '/api/runs/old/export?format=vllm' })).statusCode).toBe(200);
    // The newest two (one of them pinned besides), the pinned one and the live one keep everything.
    for (const id of ['pinned', 'mid', 'new']) {
      const h = await held(app, id);
      expect(h, id).toMatchObject({ events: before.events, requests: 6 });
      expect(h.detail.prunedAtMs, id).toBeNull();
    }
    expect((await held(app, 'live')).events).toBe(1);
    expect(app.pruner.stats).toMatchObject({ runsPruned: 1, failedSweeps: 0 });
    // A second sweep finds nothing more to do.
    await app.pruner.sweep();
    expect(app.pruner.stats.runsPruned).toBe(1);
  });

  it('--retain-days prunes by when the run happened; unpin makes a pinned run prunable again', async ({ newApp }) => {
    const app = await newApp(
      fleetAppOptions({ retention: { policy: { retainDays: 7, retainRuns: null }, now: () => NOW } }),
    );
    await seedRun(app, 'eight-days', NOW - 8 * DAY);
    await seedRun(app, 'six-days', NOW - 6 * DAY);
    await seedRun(app, 'pinned-old', NOW - 100 * DAY);
    await app.inject({ method: 'POST', url: '/api/runs/pinned-old/pin' });
    await app.pruner.sweep();
    expect((await held(app, 'eight-days')).detail.prunedAtMs).toBe(NOW);
    expect((await held(app, 'six-days')).detail.prunedAtMs).toBeNull();
    expect((await held(app, 'pinned-old')).requests).toBe(6);
    expect((await app.inject({ method: 'POST', url: '/api/runs/pinned-old/unpin' })).json().pinned).toBe(false);
    await app.pruner.sweep();
    expect((await held(app, 'pinned-old')).requests).toBe(0);
    const missing = await app.inject({ method: 'POST', url: '/api/runs/nope/pin' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('API_NOT_FOUND');
  });

  it('prunes in bounded batches with the event loop free between them; a pin arriving midway keeps the rest', async ({
    app,
  }) => {
    const events = [runStarted('big', 300, NOW - 10 * DAY)];
    for (let i = 0; i < 300; i++) events.push(...completedRequest('big', i, i));
    await seedRun(app, 'big', NOW - 10 * DAY, { events });
    await seedRun(app, 'big2', NOW - 9 * DAY, {
      events: events.map((e) => (e.type === 'run.started' ? { ...e, runId: 'big2' } : e)),
    });
    const stored = (await held(app, 'big2')).events; // the events and the closing run.status
    const inner = app.store.retention;
    const batches: { run: string; table: string; max: number; deleted: number; turnsBefore: number }[] = [];
    let turns = 0;
    const spin = setInterval(() => turns++, 0);
    const store: RetentionStore = {
      dueRuns: (p, n, l) => inner.dueRuns(p, n, l),
      markPruned: (id, n) => inner.markPruned(id, n),
      setPinned: (id, p) => inner.setPinned(id, p),
      retentionFacts: (id) => inner.retentionFacts(id),
      async pruneBatch(run, table, max) {
        const deleted = await inner.pruneBatch(run, table, max);
        batches.push({ run, table, max, deleted, turnsBefore: turns });
        // Pinned after its third batch: the run keeps what is left.
        if (run === 'big2' && batches.filter((b) => b.run === 'big2').length === 3) await inner.setPinned(run, true);
        return deleted;
      },
    };
    const pruner = new Pruner({
      store,
      policy: { retainDays: null, retainRuns: 1 },
      isActive: () => false,
      batchRows: 100,
      maxBatchRows: 100, // a fixed size: this test counts batches
    });
    // retainRuns 1 keeps only the newest run: 'big' and 'big2' are both due, 'big' first (older).
    await seedRun(app, 'newest', NOW);
    await pruner.sweep();
    clearInterval(spin);
    const big = batches.filter((b) => b.run === 'big');
    expect(big.every((b) => b.deleted <= 100 && b.max === 100)).toBe(true);
    expect(big.filter((b) => b.table === 'events').length).toBeGreaterThanOrEqual(12); // 1,200+ events
    expect(big.filter((b) => b.table === 'requests').length).toBe(4); // 300 rows: 3 full batches and an empty one
    // The loop turned between batches (a timer of 0 ms fired at least once between the first and the last).
    expect(batches[batches.length - 1].turnsBefore).toBeGreaterThan(batches[0].turnsBefore);
    expect((await held(app, 'big')).events).toBe(0);
    const big2 = await held(app, 'big2');
    expect(big2.events).toBe(stored - 300);
    expect(big2.requests).toBe(300);
    expect(big2.detail).toMatchObject({ pinned: true, prunedAtMs: expect.any(Number) });
    expect((await held(app, 'newest')).detail.prunedAtMs).toBeNull();
  });

  it('takes at most its share of the event loop: after each slice of its own work it rests as long again', async ({
    app,
  }) => {
    for (let k = 0; k < 6; k++) await seedRun(app, `old-${k}`, NOW - (10 + k) * DAY);
    await seedRun(app, 'newest', NOW);
    const inner = app.store.retention;
    const work: number[] = [];
    const rests: number[] = [];
    const pruner = new Pruner({
      store: {
        ...bind(inner),
        async pruneBatch(id, t, max) {
          // Each batch costs 3 ms of this thread, as a year's small deletes do together.
          const t0 = performance.now();
          while (performance.now() - t0 < 3);
          work.push(performance.now() - t0);
          return inner.pruneBatch(id, t, max);
        },
      },
      policy: { retainDays: null, retainRuns: 1 },
      isActive: () => false,
      loopShare: 0.25,
      rest: async (ms) => void rests.push(ms),
    });
    await pruner.sweep();
    expect(pruner.stats.runsPruned).toBe(6);
    // Every second batch or so ends a slice (4 ms), and each rest is three times the slice's work (a quarter share).
    expect(rests.length).toBeGreaterThanOrEqual(Math.floor(work.length / 2) - 1);
    expect(rests.every((ms) => ms >= 3 * 4)).toBe(true);
    const worked = work.reduce((a, b) => a + b, 0);
    expect(rests.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3 * worked * 0.8);
  });

  it('a batch size that grows between batches still prunes every row of every table', async ({ app }) => {
    const events = [runStarted('grow', 600, NOW - 10 * DAY)];
    for (let i = 0; i < 600; i++) events.push(...completedRequest('grow', i, i));
    await seedRun(app, 'grow', NOW - 10 * DAY, { events });
    await seedRun(app, 'newest', NOW);
    const sizes: number[] = [];
    const inner = app.store.retention;
    const pruner = new Pruner({
      store: { ...bind(inner), pruneBatch: (id, t, max) => (sizes.push(max), inner.pruneBatch(id, t, max)) },
      policy: { retainDays: null, retainRuns: 1 },
      isActive: () => false,
      batchRows: 100,
      targetBatchMs: 1e6, // every batch is "fast": the size doubles each time
    });
    await pruner.sweep();
    expect(sizes.slice(0, 4)).toEqual([100, 200, 400, 800]);
    const h = await held(app, 'grow');
    expect(h).toMatchObject({ events: 0, requests: 0 });
    expect(h.detail.prunedAtMs).toEqual(expect.any(Number));
  });
});

describe('retention and shutdown', () => {
  it('closing the app mid-sweep stops the pruner at its next batch, before the database closes', async ({
    newApp,
    tempDir,
  }) => {
    const errors: Error[] = [];
    const options = fleetAppOptions({
      dataDir: tempDir,
      retention: {
        policy: { retainDays: null, retainRuns: 1 },
        batchRows: 100,
        maxBatchRows: 100,
        onError: (e) => errors.push(e),
      },
    });
    const app = await newApp(options);
    const events = [runStarted('big', 300, NOW - DAY)];
    for (let i = 0; i < 300; i++) events.push(...completedRequest('big', i, i));
    await seedRun(app, 'big', NOW - DAY, { events });
    await seedRun(app, 'newest', NOW);
    const sweep = app.pruner.sweep();
    await new Promise((r) => setImmediate(r)); // a first batch or so
    await app.close();
    await sweep;
    expect(app.pruner.stats.failedSweeps).toBe(0);
    expect(errors).toEqual([]);
    // Stopped part-way: not marked pruned, so the next start finishes the job.
    const again = await newApp(options);
    expect((await held(again, 'big')).detail.prunedAtMs).toBeNull();
    await again.pruner.sweep();
    expect(await held(again, 'big')).toMatchObject({ events: 0, requests: 0 });
  });
});

/** A RetentionStore's methods bound to it (to wrap one of them). */
function bind(s: RetentionStore): RetentionStore {
  return {
    dueRuns: (p, n, l) => s.dueRuns(p, n, l),
    pruneBatch: (id, t, m) => s.pruneBatch(id, t, m),
    markPruned: (id, n) => s.markPruned(id, n),
    setPinned: (id, p) => s.setPinned(id, p),
    retentionFacts: (id) => s.retentionFacts(id),
  };
}
