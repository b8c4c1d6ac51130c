/**
 * One PostgreSQL database served by several dashboard processes
 * (docs/design.md#team-dashboard) and a dashboard that loses its database
 * (docs/design.md#outage-buffer), with real `stallscope serve` processes and
 * a throwaway PostgreSQL 15 cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { completedRequest, runFinished, runStarted, stallReport } from '#test/helpers/sampleEvents.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';

let cluster: PgCluster;
const servers: RunningServer[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  cluster?.destroy();
});

async function serve(url: string, extra: string[] = []): Promise<RunningServer> {
  const s = await startServer(undefined, { args: ['--database', url, ...extra] });
  servers.push(s);
  return s;
}

async function post(base: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

const events = (s: RunningServer, runId: string, list: RunEvent[]) =>
  post(s.url, `/api/runs/${runId}/events`, { events: list });

/** Every stored seq of a run, read straight from the database. */
async function storedSeqs(url: string, runId: string): Promise<number[]> {
  const s = await openPgStore({ url });
  try {
    return (await s.runReads.eventsAfter(runId, 0, 1_000_000)).map((e) => e.seq);
  } finally {
    await s.close();
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('one database, two dashboard processes', () => {
  it('numbers a run written through both at once without gaps or duplicates; each sees what the other wrote', async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    expect((await post(a.url, '/api/runs/external', { runId: 'shared', config: {} })).status).toBe(201);
    const N = 200;
    expect((await events(a, 'shared', [runStarted('shared', N)])).status).toBe(200);
    // Batches of 5 requests, sent to both processes at once, 4 in flight per process.
    const batches = Array.from({ length: N / 5 }, (_, k) =>
      range(5).flatMap((i) => completedRequest('shared', k * 5 + i - 1)),
    );
    const replies: number[] = [];
    for (let k = 0; k < batches.length; k += 8)
      replies.push(
        ...(await Promise.all(
          batches.slice(k, k + 8).map((list, j) => events(j % 2 ? b : a, 'shared', list).then((r) => r.status)),
        )),
      );
    expect(replies.every((s) => s === 200)).toBe(true);
    expect((await events(b, 'shared', [runFinished(N)])).status).toBe(200);
    // running, run.started, 4 per request, run.finished, and the run.status that ends it.
    const total = 2 + 4 * N + 2;
    await expect.poll(() => storedSeqs(url, 'shared'), { timeout: 10_000 }).toEqual(range(total));
    const run = (await (await fetch(`${a.url}/api/runs/shared`)).json()) as { status: string; counts: unknown };
    expect(run.status).toBe('finished');
    // The process that did not end it let it go too (it would otherwise record it interrupted later).
    await expect
      .poll(async () => ((await (await fetch(`${a.url}/api/health`)).json()) as { activeRuns: string[] }).activeRuns)
      .toEqual([]);
  });

  it('streams to a browser on one process the events reported through the other (LISTEN/NOTIFY)', async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    const ws = new WebSocket(`${b.url.replace('http', 'ws')}/ws`);
    const arrived = new Map<number, number>();
    const listed: string[][] = [];
    ws.on('message', (raw: Buffer) => {
      const m = JSON.parse(raw.toString()) as { type: string; events?: { seq: number }[]; runs?: { runId: string }[] };
      if (m.type === 'deltas') for (const e of m.events!) arrived.set(e.seq, performance.now());
      if (m.type === 'snapshot') listed.push(m.runs!.map((r) => r.runId));
    });
    await new Promise((r) => ws.once('open', r));
    expect((await post(a.url, '/api/runs/external', { runId: 'seen', config: {} })).status).toBe(201);
    // The run started through A is listed live on B.
    await expect.poll(() => listed.at(-1)).toEqual(['seen']);
    expect((await events(a, 'seen', [runStarted('seen', 50)])).status).toBe(200);
    ws.send(JSON.stringify({ type: 'subscribe', runId: 'seen', afterSeq: 0 }));
    await expect.poll(() => arrived.size).toBe(2);
    const lags: number[] = [];
    for (let i = 0; i < 20; i++) {
      const before = arrived.size;
      const t0 = performance.now();
      expect((await events(a, 'seen', completedRequest('seen', i))).status).toBe(200);
      await expect.poll(() => arrived.size, { timeout: 5000, interval: 5 }).toBe(before + 4);
      lags.push(Math.max(...[...arrived.values()].slice(-4)) - t0);
    }
    ws.close();
    lags.sort((x, y) => x - y);
    console.log(
      `cross-process live lag (post to A → frame from B): p50 ${lags[10].toFixed(0)} ms, max ${lags[19].toFixed(0)} ms`,
    );
    expect([...arrived.keys()].sort((x, y) => x - y)).toEqual(range(2 + 80));
  });
});

describe('a dashboard that loses its database', () => {
  it('buffers reports while PostgreSQL is stopped, says so on /api/health, and loses nothing', async () => {
    const url = await cluster.freshDatabase();
    const a = await serve(url);
    expect((await post(a.url, '/api/runs/external', { runId: 'out', config: {} })).status).toBe(201);
    expect((await events(a, 'out', [runStarted('out', 30)])).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await events(a, 'out', completedRequest('out', i))).status).toBe(200);
    // A browser on the dashboard is told when the database goes and comes back (its banner).
    const said: boolean[] = [];
    const ws = new WebSocket(`${a.url.replace('http', 'ws')}/ws`);
    ws.on('message', (raw: Buffer) => {
      const m = JSON.parse(raw.toString()) as { type: string; health?: { connected: boolean } };
      if (m.type === 'store') said.push(m.health!.connected);
    });
    await expect.poll(() => said).toEqual([true]);
    cluster.stop();
    try {
      for (let i = 10; i < 25; i++) expect((await events(a, 'out', completedRequest('out', i))).status).toBe(200);
      const health = (await (await fetch(`${a.url}/api/health`)).json()) as {
        ok: boolean;
        store: { connected: boolean; buffered: number };
      };
      expect(health).toMatchObject({ ok: false, store: { connected: false, buffered: 60 } });
    } finally {
      cluster.start();
    }
    for (let i = 25; i < 30; i++) expect((await events(a, 'out', completedRequest('out', i))).status).toBe(200);
    expect((await events(a, 'out', [runFinished(30)])).status).toBe(200);
    await expect.poll(() => storedSeqs(url, 'out'), { timeout: 15_000 }).toEqual(range(2 + 4 * 30 + 2));
    const health = (await (await fetch(`${a.url}/api/health`)).json()) as {
      store: { connected: boolean; buffered: number };
    };
    expect(health.store).toMatchObject({ connected: true, buffered: 0 });
  });

  it('past the buffer answers 503 so the reporter keeps the batch; the batch posted again is stored once', async () => {
    const url = await cluster.freshDatabase();
    const a = await serve(url, ['--buffer-events', '10']);
    expect((await post(a.url, '/api/runs/external', { runId: 'full', config: {} })).status).toBe(201);
    expect((await events(a, 'full', [runStarted('full', 5)])).status).toBe(200);
    cluster.stop();
    let refused;
    try {
      expect((await events(a, 'full', [...completedRequest('full', 0), ...completedRequest('full', 1)])).status).toBe(
        200,
      );
      refused = await events(a, 'full', completedRequest('full', 2));
    } finally {
      cluster.start();
    }
    expect(refused).toMatchObject({ status: 503, json: { code: 'STORE_UNAVAILABLE' } });
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${a.url}/api/health`)).json()) as { store: { buffered: number } }).store.buffered,
        { timeout: 15_000 },
      )
      .toBe(0);
    expect((await events(a, 'full', completedRequest('full', 2))).status).toBe(200);
    await expect.poll(() => storedSeqs(url, 'full'), { timeout: 10_000 }).toEqual(range(2 + 12));
  });

  it('counts every event of a body against the buffer: over its room a 503, over its capacity a 413', async () => {
    const url = await cluster.freshDatabase();
    const a = await serve(url, ['--buffer-events', '10']);
    expect((await post(a.url, '/api/runs/external', { runId: 'cap', config: {} })).status).toBe(201);
    expect((await events(a, 'cap', [runStarted('cap', 5)])).status).toBe(200);
    // Bigger than the buffer itself: no retry would ever fit, so not a 503 (the reporter would retry forever).
    const eleven = Array.from({ length: 11 }, (_, i) => ({
      type: 'request.queued',
      t: i,
      index: i % 5,
      requestId: `cap-${i % 5}`,
    }));
    const tooBig = await events(a, 'cap', eleven as RunEvent[]);
    expect(tooBig).toMatchObject({ status: 413, json: { code: 'API_PAYLOAD_TOO_LARGE' } });
    const stall = (opId: number) =>
      JSON.stringify({ v: 1, ts: Date.now(), type: 'watchdog.stall', report: stallReport('cap', opId) });
    const lines = (n: number) => Array.from({ length: n }, (_, i) => stall(i)).join('\n');
    const ingest = async (body: string) => {
      const r = await fetch(`${a.url}/api/ingest?runId=cap`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body,
      });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    expect(await ingest(lines(11))).toMatchObject({ status: 413, json: { code: 'API_PAYLOAD_TOO_LARGE' } });
    cluster.stop();
    let over;
    try {
      expect((await ingest(lines(6))).status).toBe(200); // buffered: 6 of 10
      over = await ingest(lines(5)); // 11 > 10: refused whole, not one event past the bound
      const health = (await (await fetch(`${a.url}/api/health`)).json()) as { store: { buffered: number } };
      expect(health.store.buffered).toBe(6);
    } finally {
      cluster.start();
    }
    expect(over).toMatchObject({ status: 503, json: { code: 'STORE_UNAVAILABLE' } });
  });
});
