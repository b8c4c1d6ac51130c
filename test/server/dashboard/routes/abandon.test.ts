/**
 * A run reported by a CLI elsewhere (`--report-to`) cannot be cancelled here:
 * Cancel and Delete say so and name the way out; Mark abandoned records it
 * interrupted by the dashboard, after which it can be deleted and a late
 * batch from its CLI is refused with a 409 that says why. A run started by
 * the dashboard is cancelled, not abandoned.
 */
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { scriptedManager } from '#test/helpers/dashboardApp.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { completedRequest, runStarted } from '#test/helpers/sampleEvents.ts';

const poster =
  (app: FastifyInstance) =>
  (url: string, payload: object = {}) =>
    app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });

async function reportedRun(app: FastifyInstance, id: string): Promise<void> {
  const post = poster(app);
  expect((await post('/api/runs/external', { runId: id, config: { numPrompts: 3 } })).statusCode).toBe(201);
  const r = await post(`/api/runs/${id}/events`, { events: [runStarted(id, 3), ...completedRequest(id, 0)] });
  expect(r.statusCode).toBe(200);
}

describe('a reported run, driven by a CLI elsewhere', () => {
  it('Cancel and Delete say it is driven by a CLI and how to abandon it; nothing changes', async ({ app }) => {
    const post = poster(app);
    await reportedRun(app, 'ci-1');
    const cancel = await post('/api/runs/ci-1/cancel');
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json()).toMatchObject({ code: 'API_CONFLICT' });
    expect(cancel.json().message).toMatch(
      /^conflict: run ci-1 is driven by `stallscope bench --report-to` from a CLI elsewhere.*mark the run abandoned \(POST \/api\/runs\/:id\/abandon\)$/,
    );
    const del = await app.inject({ method: 'DELETE', url: '/api/runs/ci-1' });
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toMatch(/is running and is driven by .* mark the run abandoned .*, then delete it$/);
    expect(app.hub.isActive('ci-1')).toBe(true);
  });

  it('Mark abandoned: interrupted by the dashboard, a late batch refused with a 409, then deleted', async ({ app }) => {
    const post = poster(app);
    await reportedRun(app, 'ci-2');
    const res = await post('/api/runs/ci-2/abandon');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'ci-2', status: 'interrupted' });
    const d = (await app.inject({ url: '/api/runs/ci-2' })).json();
    expect(d).toMatchObject({
      status: 'interrupted',
      verdict: 'interrupted',
      interruptCause: 'dashboard',
      active: false,
    });
    // The replayed stream ends the way the live one did, with who interrupted it.
    const events = (await app.inject({ url: '/api/runs/ci-2/events' })).json().events as { event: unknown }[];
    expect(events.at(-1)!.event).toMatchObject({
      type: 'run.status',
      status: 'interrupted',
      interruptCause: 'dashboard',
      message: expect.stringMatching(/^marked abandoned in the dashboard/),
    });

    const late = await post('/api/runs/ci-2/events', { events: completedRequest('ci-2', 1) });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({
      code: 'API_CONFLICT',
      field: 'runId',
      message:
        'conflict: run ci-2 takes no more events: it was marked abandoned in the dashboard; the batch was refused whole, nothing was applied',
    });
    expect((await app.inject({ url: '/api/runs/ci-2' })).json().counts.completed).toBe(1);
    expect((await post('/api/runs/ci-2/abandon')).statusCode).toBe(409); // already ended

    expect((await app.inject({ method: 'DELETE', url: '/api/runs/ci-2' })).statusCode).toBe(200);
    expect((await post('/api/runs/ci-2/events', { events: [] })).statusCode).toBe(404);
    expect((await post('/api/runs/ci-2/abandon')).statusCode).toBe(404);
  });

  it('a run the dashboard started is cancelled, not abandoned', async ({ newApp }) => {
    const app = await newApp({ runManager: (hub) => scriptedManager(hub) });
    const post = poster(app);
    const started = await post('/api/runs', { target: { kind: 'embedded' }, dataset: { name: 'random' } });
    expect(started.statusCode).toBe(201);
    const { id } = started.json() as { id: string };
    const res = await post(`/api/runs/${id}/abandon`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/was started by this dashboard, not reported by a CLI: cancel it instead$/);
    expect((await post(`/api/runs/${id}/cancel`)).statusCode).toBe(202);
    expect((await post(`/api/runs/${id}/cancel`)).json().message).toMatch(/is not running \(interrupted\)/);
    expect((await post('/api/runs/nope/cancel')).statusCode).toBe(404);
  });
});
