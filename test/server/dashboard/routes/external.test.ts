import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';

describe('--report-to API', () => {
  it('creates a CLI run, appends event batches, and ends it on run.finished', async ({ app }) => {
    const config = {
      model: 'openbmb/MiniCPM-o-4_5',
      baseUrl: 'http://10.0.0.5:8000',
      numPrompts: 6,
      maxConcurrency: 2,
      requestRate: 'inf',
      failFast: true,
      dataset: { name: 'random' },
    };
    const c = await app.inject({
      method: 'POST',
      url: '/api/runs/external',
      payload: { runId: 'ci-77', config, metadata: { build: '77' } },
    });
    expect(c.statusCode).toBe(201);
    expect(
      (await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'ci-77' } })).statusCode,
    ).toBe(409);
    const events = hangRunEvents('ci-77').filter((e) => e.type !== 'telemetry');
    const first = await app.inject({
      method: 'POST',
      url: '/api/runs/ci-77/events',
      payload: { events: events.slice(0, 5) },
    });
    expect(first.json()).toEqual({ lastSeq: 6 });
    expect(app.hub.isActive('ci-77')).toBe(true);
    await app.inject({ method: 'POST', url: '/api/runs/ci-77/events', payload: { events: events.slice(5) } });
    expect(app.hub.isActive('ci-77')).toBe(false);
    const d = (await app.inject({ url: '/api/runs/ci-77' })).json();
    expect(d).toMatchObject({
      source: 'cli',
      status: 'finished',
      verdict: 'failed_closed',
      target: 'http://10.0.0.5:8000',
      metadata: { build: '77' },
      counts: { unsent: 2 },
    });
    // The run has ended: a late batch is refused, saying so (a run that does not exist is a 404).
    const late = await app.inject({ method: 'POST', url: '/api/runs/ci-77/events', payload: { events: [] } });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toMatch(/^conflict: run ci-77 takes no more events: it has ended \(finished\)/);
    expect(
      (await app.inject({ method: 'POST', url: '/api/runs/ci-78/events', payload: { events: [] } })).statusCode,
    ).toBe(404);
  });

  it('a reported ramp-up run shows its ramp as its rate', async ({ app }) => {
    const config = { model: 'm', requestRate: 'inf', rampUp: { strategy: 'exponential', startRps: 2, endRps: 30 } };
    expect(
      (await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'ci-ramp', config } }))
        .statusCode,
    ).toBe(201);
    expect((await app.inject({ url: '/api/runs/ci-ramp' })).json().requestRate).toBe('exponential 2→30');
  });

  it('rejects malformed bodies', async ({ app }) => {
    expect(
      (await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'bad id with spaces' } }))
        .statusCode,
    ).toBe(400);
    expect((await app.inject({ method: 'POST', url: '/api/runs/external', payload: {} })).json()).toMatchObject({
      code: 'API_BAD_REQUEST',
      field: 'runId',
    });
    await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'ok' } });
    expect(
      (await app.inject({ method: 'POST', url: '/api/runs/ok/events', payload: { events: [{ nope: 1 }] } })).statusCode,
    ).toBe(400);
  });
});
