/**
 * A reported run fed through one dashboard process while another holds it too (docs/design.md#any-process): the
 * process its batches stopped reaching does not record it interrupted while another process still takes them,
 * and lets it go once that process ended it. Two dashboards in this process on one real PostgreSQL database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#server/dashboard/app.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { completedRequest, runStarted } from '#test/helpers/sampleEvents.ts';

let cluster: PgCluster;
const apps: FastifyInstance[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  for (const a of apps) await a.close();
  cluster?.destroy();
});

// Long enough that B's batches, one every quarter of it, keep the run alive on a loaded 2-core machine (at 400 ms a
// batch that waited for a core made A declare the run silent under stress-ng).
const IDLE_MS = 1_000;

async function dashboard(url: string): Promise<FastifyInstance> {
  const app = await buildApp({ dataDir: null, database: url, reportedIdleMs: IDLE_MS });
  apps.push(app);
  return app;
}

const post = (app: FastifyInstance, url: string, payload: unknown) =>
  app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });
const statusOf = async (app: FastifyInstance, id: string) =>
  (await app.inject({ url: `/api/runs/${id}` })).json<{ status: string }>().status;

describe('a reported run fed through another process', () => {
  it('is not recorded silent by the process its batches stopped reaching, while another takes them', async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = [await dashboard(url), await dashboard(url)];
    expect((await post(a, '/api/runs/external', { runId: 'fed', config: {} })).statusCode).toBe(201);
    expect((await post(a, '/api/runs/fed/events', { events: [runStarted('fed', 40)] })).statusCode).toBe(200);
    // From here every batch goes to B, for more than three of A's idle periods.
    const until = performance.now() + IDLE_MS * 3.5;
    for (let i = 0; performance.now() < until; i++) {
      const r = await post(b, '/api/runs/fed/events', { events: completedRequest('fed', i) });
      expect(r.statusCode, r.body).toBe(200);
      await new Promise((res) => setTimeout(res, IDLE_MS / 4));
    }
    expect(await statusOf(a, 'fed')).toBe('running');
    expect(a.hub.isActive('fed')).toBe(true);
    // Now silent everywhere: recorded interrupted once, and neither process holds it.
    await expect.poll(() => statusOf(a, 'fed'), { timeout: IDLE_MS * 6 }).toBe('interrupted');
    await expect
      .poll(() => [a.hub.isActive('fed'), b.hub.isActive('fed')], { timeout: IDLE_MS * 6 })
      .toEqual([false, false]);
  });
});
