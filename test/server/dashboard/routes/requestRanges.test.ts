/**
 * A stopped run's unsent tail arrives as one `requests.unsent`
 * and is stored as one range; `/api/runs/:id/requests` lists it as a row per
 * request, as the per-request events used to store them, page by page.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import type { FastifyInstance } from 'fastify';
import type { RequestRow } from '#shared/protocol/apiSchemas.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { recordRun } from '#test/helpers/dashboardApp.ts';
import { completedRequest, outcome, runStarted } from '#test/helpers/sampleEvents.ts';

const RUN = 'huge';
const SENT = 10;
const N = SENT + 1_000_000;
const ERROR = 'not dispatched: cancelled by the fail-fast breaker';

/** The heap in use after a full collection (the flag is set for a fresh context's `gc`). */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

/** Ten requests that began (one failed), then the stop: the breaker, the unsent million in one event. */
function hugeRunEvents(): RunEvent[] {
  const events: RunEvent[] = [runStarted(RUN, N)];
  for (let i = 0; i < SENT - 1; i++) events.push(...completedRequest(RUN, i, i * 4));
  const failed = SENT - 1;
  events.push(
    { type: 'request.queued', t: 40, index: failed, requestId: `${RUN}-${failed}` },
    { type: 'request.sent', t: 41, index: failed, requestId: `${RUN}-${failed}`, attempt: 1 },
    { type: 'request.failed', t: 42, outcome: outcome(RUN, failed, 'failed', { error: 'HTTP 500', sentT: 41 }) },
    { type: 'requests.unsent', t: 50, from: SENT, to: N, error: ERROR, stoppedBy: 'breaker' },
  );
  return events;
}

async function page(app: FastifyInstance, query: string): Promise<{ total: number; requests: RequestRow[] }> {
  const r = await app.inject({ url: `/api/runs/${RUN}/requests?${query}` });
  expect(r.statusCode).toBe(200);
  return r.json();
}

/** The row a `request.unsent` of request `i` stored before ranges. */
const neverSent = (i: number): RequestRow => ({
  index: i,
  requestId: `${RUN}-${i}`,
  status: 'not_dispatched',
  queuedT: null,
  sentT: null,
  firstTokenT: null,
  firstAudioT: null,
  endT: 50,
  ttftS: 0,
  e2elS: 0,
  audioTtfpS: 0,
  audioDurationS: 0,
  outputTokens: 0,
  promptLen: 0,
  attempts: 0,
  error: ERROR,
  timeoutKind: null,
});

describe('a run whose unsent million is one range', () => {
  it('is stored as one record and listed as a row per request, paged, counted and filtered', async ({ app }) => {
    recordRun(app.hub, RUN, hugeRunEvents());
    await app.store.ingest.flush();
    const db = sqliteOf(app.store).db;
    expect(db.prepare('SELECT COUNT(*) FROM requests WHERE run_id = ?').pluck().get(RUN)).toBe(SENT);
    expect(db.prepare('SELECT COUNT(*) FROM request_ranges WHERE run_id = ?').pluck().get(RUN)).toBe(1);
    const heap0 = heapAfterGc();

    // The first page: the ten that began as stored, then the range's first rows, synthesised.
    const first = await page(app, 'offset=0&limit=15');
    expect(first.total).toBe(N);
    expect(first.requests.map((r) => r.index)).toEqual([...Array(15).keys()]);
    expect(first.requests.slice(0, SENT - 1).every((r) => r.status === 'completed')).toBe(true);
    expect(first.requests[SENT - 1]).toMatchObject({ status: 'failed', error: 'HTTP 500' });
    expect(first.requests.slice(SENT)).toEqual([10, 11, 12, 13, 14].map(neverSent));

    // Deep into the range and across its end.
    const deep = await page(app, `offset=${N - 3}&limit=50`);
    expect(deep.requests).toEqual([N - 3, N - 2, N - 1].map(neverSent));
    expect((await page(app, `offset=${N}&limit=10`)).requests).toEqual([]);

    // By status: the range's requests are not_dispatched rows, the others are theirs.
    const unsent = await page(app, `status=not_dispatched&offset=999999&limit=5`);
    expect(unsent).toEqual({ total: 1_000_000, requests: [neverSent(N - 1)] });
    const firstUnsent = await page(app, 'status=not_dispatched&limit=1');
    expect(firstUnsent.requests).toEqual([neverSent(SENT)]);
    const done = await page(app, 'status=completed&limit=100');
    expect(done.total).toBe(SENT - 1);
    expect(done.requests.map((r) => r.index)).toEqual([...Array(SENT - 1).keys()]);
    expect((await page(app, 'status=failed')).requests.map((r) => r.index)).toEqual([SENT - 1]);
    expect(await page(app, 'status=timed_out')).toEqual({ total: 0, requests: [] });

    // Pages from all through the range: nothing the size of the range was built or kept (the rows of a
    // million are >300 MB as JSON); what stays is at most about the last page read.
    for (let offset = SENT; offset < N; offset += 50_000) {
      const p = await page(app, `offset=${offset}&limit=2000`);
      expect(p.requests).toHaveLength(2000);
      expect(p.requests[1999]).toEqual(neverSent(offset + 1999));
    }
    expect(heapAfterGc() - heap0).toBeLessThan(16 * 1024 * 1024);
    // The hub holds no row of the range either.
    expect(app.hub.tracker(RUN)?.requests.size ?? 0).toBe(0);
  }, 30_000);

  it('a stored row inside a range wins over the range’s: listed as it ended, counted under its own state', async ({
    app,
  }) => {
    // A reporter that ended request 12 before stopping the run from 10 (the engine never does).
    const events: RunEvent[] = [
      runStarted(RUN, 20),
      ...completedRequest(RUN, 12, 1),
      { type: 'requests.unsent', t: 50, from: 10, to: 20, error: ERROR, stoppedBy: 'breaker' },
    ];
    recordRun(app.hub, RUN, events);
    const all = await page(app, 'limit=100');
    expect(all.total).toBe(10);
    expect(all.requests.map((r) => [r.index, r.status])).toEqual([
      [10, 'not_dispatched'],
      [11, 'not_dispatched'],
      [12, 'completed'],
      ...[13, 14, 15, 16, 17, 18, 19].map((i) => [i, 'not_dispatched']),
    ]);
    const unsent = await page(app, 'status=not_dispatched&offset=2&limit=3');
    expect(unsent.total).toBe(9);
    expect(unsent.requests.map((r) => r.index)).toEqual([13, 14, 15]);
    expect((await page(app, 'status=completed')).requests.map((r) => r.index)).toEqual([12]);
  });
});
