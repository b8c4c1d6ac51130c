/**
 * Every index and count a reporter sends is checked against what its run
 * declared (`run.started.numRequests`) before anything is allocated, stored
 * or numbered: property-tested over the whole integer range relative to the
 * declared number. Never a 5xx; a refused batch is a 400 naming the field,
 * answered at once, and changes nothing; the dashboard's memory does not
 * follow the numbers it is sent.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testApp } from '#test/helpers/dashboardApp.ts';
import { completedRequest, runStarted } from '#test/helpers/sampleEvents.ts';
import { MAX_RUN_REQUESTS } from '#shared/protocol/protocol.ts';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());

const post = (id: string, events: unknown[]) =>
  app.inject({ method: 'POST', url: `/api/runs/${id}/events`, payload: { events } });

let runs = 0;
/** A reported run that has declared `n` requests. */
async function reported(n: number): Promise<string> {
  const id = `b${++runs}`;
  expect((await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: id } })).statusCode).toBe(
    201,
  );
  expect((await post(id, [runStarted(id, n)])).statusCode).toBe(200);
  return id;
}

function snapshot(id: string) {
  sqliteOf(app.store).writer.flush();
  const live = app.hub.tracker(id)!.state;
  return {
    seq: live.seq,
    counts: structuredClone(live.counts),
    stored: sqliteOf(app.store).runs.get(id)?.lastSeq,
    events: sqliteOf(app.store).runs.eventsAfter(id, 0, 10_000).length,
  };
}

/** An index relative to the declared n: inside, at the edges, far outside, or not an index at all. */
const indexFor = (n: number) =>
  fc.oneof(
    fc.integer({ min: 0, max: n - 1 }),
    fc.constantFrom(n, n + 1, 2 * n, 120_000_000, 1_500_000_000, 2 ** 31 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER),
    fc.integer({ min: n, max: 2 ** 31 }),
    fc.constantFrom(-1, -(2 ** 31), 0.5, n - 0.5),
  );

type Gen = { kind: 'request'; index: number } | { kind: 'accuracy'; total: number } | { kind: 'restart'; n: number };

const eventFor = (id: string, g: Gen, i: number): unknown[] => {
  if (g.kind === 'request') {
    // The four events of a request, in the order they happen, all with the chosen index.
    const idx = g.index;
    return completedRequest(id, 0, i).map((e) => ({
      ...e,
      ...('index' in e ? { index: idx } : {}),
      ...('outcome' in e ? { outcome: { ...e.outcome, index: idx } } : {}),
    }));
  }
  if (g.kind === 'accuracy') return [{ type: 'accuracy.started', t: i, total: g.total, asrModel: 'm', bounds: [] }];
  return [runStarted(id, g.n)];
};

const validIndex = (x: number, n: number) => Number.isInteger(x) && x >= 0 && x < n;

describe('POST /api/runs/:id/events holds indexes and counts to the run declared', () => {
  it('whole integer range: never a 5xx; a refusal is a 400 naming the field, at once, and changes nothing', async () => {
    const rssBefore = process.memoryUsage().rss;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 64 }).chain((n) =>
          fc.tuple(
            fc.constant(n),
            fc.array(
              fc.oneof(
                { weight: 6, arbitrary: indexFor(n).map((index): Gen => ({ kind: 'request', index })) },
                {
                  weight: 1,
                  arbitrary: fc
                    .oneof(fc.integer({ min: 0, max: n }), fc.constantFrom(n + 1, 2 ** 31, MAX_RUN_REQUESTS + 1))
                    .map((total): Gen => ({ kind: 'accuracy', total })),
                },
                { weight: 1, arbitrary: fc.integer({ min: 0, max: 100 }).map((k): Gen => ({ kind: 'restart', n: k })) },
              ),
              { minLength: 1, maxLength: 6 },
            ),
          ),
        ),
        async ([n, gens]) => {
          const id = await reported(n);
          const events = gens.flatMap((g, i) => eventFor(id, g, i));
          const ok = gens.every((g) =>
            g.kind === 'request' ? validIndex(g.index, n) : g.kind === 'accuracy' ? g.total <= n : false,
          );
          const before = snapshot(id);
          const t0 = performance.now();
          const r = await post(id, events);
          const ms = performance.now() - t0;
          expect(r.statusCode).toBeLessThan(500);
          expect(ms).toBeLessThan(2_000);
          if (ok) {
            expect(r.statusCode, r.body).toBe(200);
            expect(r.json().lastSeq).toBe(before.seq + events.length);
          } else {
            expect(r.statusCode, r.body).toBe(400);
            expect(r.json().field).toMatch(/^events\.\d+\.(index|total|type|outcome\.index)$/);
            expect(snapshot(id)).toEqual(before);
          }
        },
      ),
      { numRuns: 150, seed: 20261201 },
    );
    // 150 runs, some declaring up to 64 requests: megabytes, not the gigabyte a 1.5e9 index once cost.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('the reported reproduction: run.started (2 requests) then request.queued at index 120,000,000 in one batch', async () => {
    const id = `b${++runs}`;
    await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: id } });
    const before = snapshot(id);
    const t0 = performance.now();
    const r = await post(id, [runStarted(id, 2), { type: 'request.queued', t: 1, index: 120_000_000, requestId: 'x' }]);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(r.statusCode).toBe(400);
    expect(r.json().field).toBe('events.1.index');
    // Past any run's bound, the schema refuses it; within it, the run's own declaration does (below).
    expect(r.json().message).toMatch(/events\[1\]: request\.queued: index must be <= 9999999/);
    // run.started of the refused batch was not stored and used no sequence number: no hole in the stream.
    expect(snapshot(id)).toEqual(before);
    const ok = await post(id, [runStarted(id, 2), ...completedRequest(id, 1)]);
    expect(ok.json()).toEqual({ lastSeq: before.seq + 5 });
    const all = await app.inject({ url: `/api/runs/${id}/events?after=0` });
    const seqs = (all.json().events as { seq: number }[]).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
  });

  it('an index within the schema but at the declared number is refused by the run, naming both', async () => {
    const id = await reported(2);
    const r = await post(id, [{ type: 'request.queued', t: 1, index: 2, requestId: 'x' }]);
    expect(r.statusCode).toBe(400);
    expect(r.json().field).toBe('events.0.index');
    expect(r.json().message).toMatch(/index 2 is not below the run's 2 requests \(run\.started\.numRequests\)/);
  });

  it("a stop rule's evidence names requests of the run only (run.stopped, docs/design.md#stop-rules)", async () => {
    const id = await reported(2);
    const stoppedBy = (index: number) => ({
      kind: 'errors',
      rule: 'errors>=1',
      atS: 0.1,
      value: 1,
      requests: [
        { index: 0, requestId: 'x-0' },
        { index, requestId: 'x' },
      ],
      omitted: 0,
    });
    const r = await post(id, [{ type: 'run.stopped', t: 1, stoppedBy: stoppedBy(2), inFlight: 0, queued: 0 }]);
    expect(r.statusCode).toBe(400);
    expect(r.json().field).toBe('events.0.stoppedBy.requests.1.index');
    expect(r.json().message).toMatch(/stop evidence index 2 is not below the run's 2 requests/);
    const ok = await post(id, [{ type: 'run.stopped', t: 1, stoppedBy: stoppedBy(1), inFlight: 0, queued: 0 }]);
    expect(ok.statusCode).toBe(200);
  });

  it('a request event before run.started has no declared bound and is refused', async () => {
    const id = `b${++runs}`;
    await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: id } });
    const r = await post(id, completedRequest(id, 0));
    expect(r.statusCode).toBe(400);
    expect(r.json().field).toBe('events.0.index');
  });
});

describe('a batch that fails part-way inside the dashboard', () => {
  it('changes nothing and uses no seq: the run is rebuilt from what was committed, the next batch numbers on', async () => {
    const id = await reported(4);
    expect((await post(id, completedRequest(id, 0))).statusCode).toBe(200);
    const before = snapshot(id);
    const tracker = app.hub.tracker(id)!;
    const fold = tracker.fold.bind(tracker);
    let calls = 0;
    // A fault in the fold at the batch's third event (what validation cannot rule out: a bug).
    tracker.fold = (e) => {
      if (++calls === 3) throw new Error('injected fault in the fold');
      return fold(e);
    };
    const r = await post(id, completedRequest(id, 1));
    expect(r.statusCode).toBe(500);
    expect(snapshot(id)).toEqual(before);
    expect(app.hub.tracker(id)!.state.counts).toEqual(before.counts);
    // The rebuilt tracker is a fresh one: the next batch is folded and numbered right after the committed stream.
    const ok = await post(id, completedRequest(id, 1));
    expect(ok.json()).toEqual({ lastSeq: before.seq + 4 });
    expect(app.hub.tracker(id)!.state.counts.completed).toBe(2);
    const all = await app.inject({ url: `/api/runs/${id}/events?after=0` });
    const seqs = (all.json().events as { seq: number }[]).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  });
});
