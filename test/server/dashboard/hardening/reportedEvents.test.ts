/**
 * POST /api/runs/:id/events (the --report-to contract): every event is checked
 * against the protocol schema before any is applied; one bad event refuses the
 * batch whole with a 400 naming its index and field, and nothing changes.
 */
import { sqliteOf, storedRowCount } from '#test/helpers/sqliteStore.ts';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import type { FastifyInstance } from 'fastify';
import { completedRequest, hangRunEvents, outcome, runStarted } from '#test/helpers/sampleEvents.ts';

/** Opens a reported run on `app` as the CLI makes one: created, then its run.started (10 requests declared). */
async function reportedRun(app: FastifyInstance, id: string): Promise<FastifyInstance> {
  const r = await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: id } });
  expect(r.statusCode).toBe(201);
  expect((await post(app, id, [runStarted(id, 10)])).statusCode).toBe(200);
  return app;
}

/** Everything a refused batch must leave as it was. */
function stateOf(a: FastifyInstance, id: string) {
  sqliteOf(a.store).writer.flush();
  return {
    live: structuredClone(a.hub.tracker(id)?.state),
    stored: sqliteOf(a.store).runs.get(id)?.lastSeq,
    requests: storedRowCount(a.store, id),
    events: sqliteOf(a.store).runs.eventsAfter(id, 0, 1000).length,
  };
}

const post = (a: FastifyInstance, id: string, events: unknown) =>
  a.inject({ method: 'POST', url: `/api/runs/${id}/events`, payload: { events } });

describe('POST /api/runs/:id/events', () => {
  it('an unknown event type is a 400 naming it, and the dashboard lives on (past the writer flush)', async ({
    app,
  }) => {
    const a = await reportedRun(app, 'x1');
    const before = stateOf(a, 'x1');
    const r = await post(a, 'x1', [{ type: 'bogus', t: 2 }]);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'API_BAD_REQUEST', field: 'events.0.type' });
    expect(r.json().message).toMatch(/events\[0\]: unknown type "bogus"/);
    await new Promise((res) => setTimeout(res, 60)); // the store's flush timer (10 ms here) has run
    expect(stateOf(a, 'x1')).toEqual(before);
    expect((await a.inject({ url: '/api/health' })).statusCode).toBe(200);
  });

  it('an end event without its outcome is refused before any counter moves', async ({ app }) => {
    const a = await reportedRun(app, 'x2');
    const before = stateOf(a, 'x2');
    const r = await post(a, 'x2', [{ type: 'request.failed', t: 1 }]);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ field: 'events.0.outcome' });
    expect(r.json().message).toMatch(/request\.failed: outcome is required/);
    expect(stateOf(a, 'x2')).toEqual(before);
    expect(a.hub.tracker('x2')!.state.counts.failed).toBe(0);
  });

  it('a batch with one bad event deep inside is refused whole: its good events are not applied either', async ({
    app,
  }) => {
    const a = await reportedRun(app, 'x3');
    const good = completedRequest('x3', 0);
    const bad = { type: 'request.completed', t: 9, outcome: { ...outcome('x3', 1, 'completed'), status: 'fine' } };
    const before = stateOf(a, 'x3');
    const r = await post(a, 'x3', [...good, bad, ...completedRequest('x3', 2)]);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ field: 'events.4.outcome.status' });
    expect(stateOf(a, 'x3')).toEqual(before);
    // The same batch without the bad event goes in whole.
    const ok = await post(a, 'x3', [...good, ...completedRequest('x3', 2)]);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ lastSeq: before.live!.seq + 8 });
    expect(a.hub.tracker('x3')!.state.counts.completed).toBe(2);
  });

  it('events after run.finished in the same batch are refused (the run ends with it)', async ({ app }) => {
    const a = await reportedRun(app, 'x4');
    const events = hangRunEvents('x4').filter((e) => e.type !== 'telemetry' && e.type !== 'run.started');
    const before = stateOf(a, 'x4');
    const r = await post(a, 'x4', [...events, { type: 'run.warning', t: 99, message: 'late' }]);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ field: `events.${events.length}.type` });
    expect(a.hub.isActive('x4')).toBe(true);
    expect(stateOf(a, 'x4')).toEqual(before);
  });

  it('non-objects, wrong types and out-of-range values name their field', async ({ app }) => {
    const a = await reportedRun(app, 'x5');
    const cases: [unknown, string][] = [
      [42, 'events.0'],
      [{ type: 'request.queued', t: 'soon', index: 0, requestId: 'r' }, 'events.0.t'],
      [{ type: 'request.sent', t: 1, index: -1, requestId: 'r', attempt: 1 }, 'events.0.index'],
      [
        { type: 'breaker.tripped', t: 1, cause: { requestIndex: 0 }, inFlight: 0, queued: 0 },
        'events.0.cause.requestId',
      ],
    ];
    for (const [event, field] of cases) {
      const r = await post(a, 'x5', [event]);
      expect(r.statusCode, JSON.stringify(event)).toBe(400);
      expect(r.json().field).toBe(field);
    }
  });
});

describe('a request ends once', () => {
  it('repeated request.completed for one index count once: counts, stored rows and the next batch agree', async ({
    app,
  }) => {
    const a = await reportedRun(app, 'x9');
    const once = completedRequest('x9', 3);
    const end = once[once.length - 1];
    const r = await post(a, 'x9', [...once, end, end, { ...end, t: 99 }]);
    expect(r.statusCode).toBe(200);
    const counts = a.hub.tracker('x9')!.state.counts;
    expect(counts.completed).toBe(1);
    expect(counts.total).toBe(10);
    sqliteOf(a.store).writer.flush();
    expect((await a.store.runReads.requests('x9', 0, 1000)).total).toBe(1);
    // And across batches.
    expect((await post(a, 'x9', [end])).statusCode).toBe(200);
    expect(a.hub.tracker('x9')!.state.counts.completed).toBe(1);
  });
});
