/**
 * A report token through a PostgreSQL outage (docs/design.md#outage-buffer, #tokens), on a real
 * `stallscope serve` process: /api/health says the database is gone within 5 s without any request having
 * failed first (its probe), a report token accepted before the outage keeps feeding its run from the token cache
 * (the batch is buffered: 200, never 500), a token the process never saw is 503 (not 401, not 500), and the
 * buffered batch is stored once when the database is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { completedRequest, runFinished, runStarted } from '#test/helpers/sampleEvents.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';

const ADMIN = 'admin-token-for-the-outage-test';

let cluster: PgCluster;
let server: RunningServer | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
  cluster?.destroy();
});

async function send(
  base: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

const connected = async (base: string) =>
  ((await (await fetch(`${base}/api/health`)).json()) as { store: { connected: boolean } }).store.connected;

const requests = (runId: string, from: number, to: number): RunEvent[] =>
  Array.from({ length: to - from }, (_, i) => completedRequest(runId, from + i)).flat();

describe('a report token through a PostgreSQL outage', () => {
  it('health false within 5 s; the known token is buffered, an unseen one 503; stored once on return', async () => {
    const url = await cluster.freshDatabase();
    server = await startServer(undefined, { args: ['--database', url, '--token', ADMIN] });
    const a = server.url;
    const token = async (name: string) =>
      (await send(a, '/api/tokens', ADMIN, { scope: 'report', name })).json.token as string;
    const report = await token('ci');
    const unseen = await token('ci-other');
    expect((await send(a, '/api/runs/external', report, { runId: 'out', config: {} })).status).toBe(201);
    expect((await send(a, '/api/runs/out/events', report, { events: [runStarted('out', 10)] })).status).toBe(200);
    expect((await send(a, '/api/runs/out/events', report, { events: requests('out', 0, 5) })).status).toBe(200);
    expect(await connected(a)).toBe(true);

    cluster.stop();
    let down: number;
    try {
      // No request fails first: the probe alone finds the database gone.
      const t0 = Date.now();
      await expect.poll(() => connected(a), { timeout: 5000, interval: 100 }).toBe(false);
      down = Date.now() - t0;
      const buffered = await send(a, '/api/runs/out/events', report, { events: requests('out', 5, 10) });
      expect(buffered.status).toBe(200);
      // A token this process never saw cannot be checked: retry later, not "unauthorized", not a crash.
      const refused = await send(a, '/api/runs/out/events', unseen, { events: requests('out', 5, 10) });
      expect(refused).toMatchObject({ status: 503, json: { code: 'STORE_UNAVAILABLE' } });
      expect((await send(a, '/api/runs/out/events', 'sst_report_never-minted', { events: [] })).status).toBe(503);
    } finally {
      cluster.start();
    }
    console.log(`health said connected:false ${down} ms after PostgreSQL stopped`);
    await expect.poll(() => connected(a), { timeout: 5000, interval: 100 }).toBe(true);
    const end = runFinished(10);
    expect((await send(a, '/api/runs/out/events', report, { events: [end] })).status).toBe(200);
    const stored = async () => {
      const s = await openPgStore({ url });
      try {
        return (await s.runReads.eventsAfter('out', 0, 10_000)).map((e) => e.seq);
      } finally {
        await s.close();
      }
    };
    // running, run.started, 4 per request, run.finished and the run.status that ends it: each once.
    await expect.poll(stored, { timeout: 10_000 }).toEqual(Array.from({ length: 2 + 40 + 2 }, (_, i) => i + 1));
  });
});
