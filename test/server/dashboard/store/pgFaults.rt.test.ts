/**
 * Database faults under a reporter's stream (docs/design.md#outage-buffer): real `stallscope serve` processes
 * (a crash is an exit), a throwaway PostgreSQL 15 cluster, and the faults a network and an operator make — a
 * connection cut right after COMMIT (the commit's outcome unknown to the dashboard), backends terminated
 * (`pg_terminate_backend`) and the writing backend killed (`kill -9`, which restarts every backend). Every
 * dashboard stays up and answers /api/health, and each run ends stored exactly once: seqs 1..N, no gap, no
 * duplicate (a batch written twice would number past N).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { startPgCutProxy } from '#test/helpers/pgCutProxy.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { completedRequest, runFinished, runStarted } from '#test/helpers/sampleEvents.ts';
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

async function serve(url: string): Promise<RunningServer> {
  const s = await startServer(undefined, { args: ['--database', url] });
  servers.push(s);
  return s;
}

const alive = (s: RunningServer) => s.child.exitCode === null && s.child.signalCode === null;

async function post(base: string, path: string, body: unknown): Promise<number> {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await r.arrayBuffer();
  return r.status;
}

/**
 * Posts a batch as `bench --report-to` does: a 503 (the database away, the buffer full) is posted again after a
 * short wait; anything else but 200 is a failure of the test.
 */
async function report(s: RunningServer, runId: string, events: RunEvent[]): Promise<void> {
  for (let tries = 0; ; tries++) {
    const status = await post(s.url, `/api/runs/${runId}/events`, { events });
    if (status === 200) return;
    if (status !== 503 || tries > 100) throw new Error(`run ${runId}: a batch was answered ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A reported run of `n` requests in batches of 5 through `s`; `between(k)` runs before batch k. */
async function reportRun(
  s: RunningServer,
  runId: string,
  n: number,
  between: (k: number) => void | Promise<void> = () => undefined,
): Promise<void> {
  for (let tries = 0; ; tries++) {
    const status = await post(s.url, '/api/runs/external', { runId, config: {} });
    if (status === 201) break;
    if (status !== 503 || tries > 100) throw new Error(`run ${runId}: created with ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await report(s, runId, [runStarted(runId, n)]);
  for (let k = 0; k < n / 5; k++) {
    await between(k);
    await report(
      s,
      runId,
      [0, 1, 2, 3, 4].flatMap((i) => completedRequest(runId, k * 5 + i)),
    );
  }
  await report(s, runId, [runFinished(n)]);
}

/** running, run.started, 4 per request, run.finished, and the run.status that ends it. */
const total = (n: number) => 2 + 4 * n + 2;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

async function storedSeqs(url: string, runId: string): Promise<number[]> {
  const s = await openPgStore({ url });
  try {
    return (await s.runReads.eventsAfter(runId, 0, 1_000_000)).map((e) => e.seq);
  } finally {
    await s.close();
  }
}

async function healthOk(s: RunningServer): Promise<boolean> {
  const r = await fetch(`${s.url}/api/health`);
  return r.status === 200 && ((await r.json()) as { store: { connected: boolean } }).store.connected;
}

describe('database faults under a reporter', () => {
  it('a connection cut right after COMMIT: the dashboard lives and learns the batch committed (stored once)', async () => {
    const url = await cluster.freshDatabase();
    const proxy = await startPgCutProxy(cluster.port);
    try {
      const a = await serve(proxy.url(new URL(url).pathname.slice(1)));
      const N = 40;
      await reportRun(a, 'cut', N, (k) => {
        // The writer's next commit (the one numbering events) is cut: PostgreSQL commits, the dashboard hears nothing.
        if (k === 3) proxy.arm(1, /INSERT INTO events/);
      });
      expect(proxy.cuts).toBe(1);
      expect(alive(a)).toBe(true);
      await expect.poll(() => storedSeqs(url, 'cut'), { timeout: 10_000 }).toEqual(range(total(N)));
      expect(await healthOk(a)).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('backends terminated and the writing backend killed mid-stream: both dashboards live, each run stored once', async () => {
    const url = await cluster.freshDatabase();
    const db = new URL(url).pathname.slice(1);
    // A killed backend makes PostgreSQL restart: only a commit that reached the WAL on disk survives it (the test
    // cluster runs with synchronous_commit=off, which may forget a commit the dashboard was told of).
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${db} SET synchronous_commit = on`);
    await admin.end();
    const [a, b] = await Promise.all([serve(url), serve(url)]);
    const N = 300;
    let streaming = true;
    const faults = { terminatedBusy: 0, killed: 0 };
    const busy = (c: pg.Client, writing: boolean) =>
      c
        .query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
             AND state IN ('active', 'idle in transaction')
             ${writing ? "AND query ~ 'last_seq|INSERT INTO events|ingest_batches'" : ''}`,
          [db],
        )
        .then((r) => r.rows.map((row) => row.pid));
    const faulter = (async () => {
      const c = new pg.Client({ connectionString: cluster.adminUrl });
      c.on('error', () => undefined); // the restart a kill -9 causes ends this connection too
      await c.connect();
      // Terminates backends working for a checked-out client (a statement running or a transaction open).
      const deadline = Date.now() + 30_000;
      while (streaming && faults.terminatedBusy < 3 && Date.now() < deadline) {
        const pids = await busy(c, false);
        if (!pids.length) continue;
        await c.query('SELECT pg_terminate_backend(p) FROM unnest($1::int[]) AS p', [pids]);
        faults.terminatedBusy += pids.length;
        await new Promise((res) => setTimeout(res, 200));
      }
      // Then kill -9 the backend of a writer's transaction: PostgreSQL restarts every backend.
      while (streaming && faults.killed === 0 && Date.now() < deadline) {
        const [pid] = await busy(c, true);
        if (pid === undefined) continue;
        process.kill(pid, 'SIGKILL');
        faults.killed++;
      }
      await c.end().catch(() => undefined);
    })();
    // The stream outlasts the faults: until they are done each batch waits 30 ms (on a loaded machine the runs
    // could otherwise end before the faulter found a writer at work, and the test would prove nothing).
    const paced = async () => {
      if (faults.killed === 0) await new Promise((res) => setTimeout(res, 30));
    };
    await Promise.all([reportRun(a, 'ra', N, paced), reportRun(b, 'rb', N, paced)]);
    streaming = false;
    await faulter;
    expect(faults.terminatedBusy).toBeGreaterThanOrEqual(3);
    expect(faults.killed).toBe(1);
    expect([alive(a), alive(b)]).toEqual([true, true]);
    for (const runId of ['ra', 'rb'])
      await expect.poll(() => storedSeqs(url, runId).catch(() => []), { timeout: 15_000 }).toEqual(range(total(N)));
    await expect.poll(async () => [await healthOk(a), await healthOk(b)], { timeout: 10_000 }).toEqual([true, true]);
  });
});
