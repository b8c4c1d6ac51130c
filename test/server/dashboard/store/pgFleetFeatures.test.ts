/**
 * Scoped tokens, retention and /metrics on a dashboard backed by PostgreSQL
 * (docs/design.md#tokens, #retention, #metrics): the same routes as on the
 * embedded store, through the store interface, against a throwaway cluster.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { test as it } from '#test/helpers/fixtures.ts';
import { seedRun } from '#test/helpers/fleetStore.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';

const ADMIN = 'admin-token-for-the-pg-fleet-test';
const DAY = 86_400_000;

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

function as(app: FastifyInstance, token: string) {
  return (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
}

describe('tokens, retention and /metrics on PostgreSQL', () => {
  it('a report token feeds its run only; a pinned run survives the sweep; /metrics reads it back', async ({
    newApp,
  }) => {
    const app = await newApp({
      dataDir: null,
      database: await cluster.freshDatabase(),
      token: ADMIN,
      retention: { policy: { retainDays: null, retainRuns: 1 } },
    });
    expect(app.store.kind).toBe('postgres');
    const admin = as(app, ADMIN);
    const created = await admin('POST', '/api/tokens', { name: 'nightly-amd', scope: 'report' });
    expect(created.statusCode).toBe(201);
    const { token, info } = created.json<{ token: string; info: { id: string } }>();
    const report = as(app, token);
    const run = await report('POST', '/api/runs/external', { runId: 'ci-1' });
    expect(run.statusCode).toBe(201);
    expect(await app.store.tokens.runReporter('ci-1')).toBe(info.id);
    expect((await report('GET', '/api/runs')).statusCode).toBe(403); // report tokens read nothing

    const now = Date.now();
    await seedRun(app, 'old', now - 30 * DAY);
    await seedRun(app, 'kept', now - 20 * DAY);
    expect((await admin('POST', '/api/runs/kept/pin')).json()).toEqual({ id: 'kept', pinned: true });
    await app.pruner.sweep();
    // Only the newest run (the live ci-1) is within the policy; 'kept' is pinned.
    expect(await app.store.retention.retentionFacts('old')).toMatchObject({
      pinned: false,
      prunedAtMs: expect.any(Number),
    });
    expect(await app.store.retention.retentionFacts('kept')).toEqual({ pinned: true, prunedAtMs: null });
    expect((await app.store.runReads.eventsAfter('old', 0, 10)).length).toBe(0);
    expect((await app.store.runReads.requests('old', 0, 10)).total).toBe(0);
    expect((await app.store.runReads.requests('kept', 0, 10)).total).toBe(6);

    const metrics = await admin('GET', '/metrics');
    expect(metrics.statusCode).toBe(200);
    const lines = metrics.body.split('\n');
    expect(lines).toContain('stallscope_database_up 1');
    expect(lines).toContain('stallscope_runs_in_progress 1');
    expect(lines).toContain('stallscope_runs_retention{state="pinned"} 1');
    expect(lines).toContain('stallscope_runs_retention{state="pruned"} 1');
    expect(lines).toContain('stallscope_ingest_queued_events 0');
  });
});
