/**
 * The fleet under a fault (`npm run bench loadBalancedFleet`; docs/design.md#any-process): two `stallscope serve`
 * processes on one PostgreSQL database behind a per-request round-robin balancer, N `stallscope bench --report-to`
 * reporters (default 32 × 1,088 requests with audio at concurrency 10) through it, and in the middle a database
 * fault — the dashboards' most recently busy PostgreSQL backend killed with SIGKILL (the postmaster then ends every
 * connection and recovers). Prints the ingest latency seen through the balancer (p50/p99/max), when the fault
 * came, and checks every run complete and stored exactly once against its CLI's result file, and both dashboards
 * still answering. Smaller: STALLSCOPE_BENCH_REPORTERS=4 STALLSCOPE_BENCH_REQUESTS=200.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startPostgres } from '../helpers/postgres.ts';
import { startServer as startDashboard } from '../helpers/dashboardProcess.ts';
import { startRoundRobinProxy } from '../helpers/roundRobinProxy.ts';
import { checkReportedRun, reporterArgs, runCli } from '../helpers/reporterFleet.ts';
import { startServer as startTarget } from './firstWave.ts';

const REPORTERS = Number(process.env.STALLSCOPE_BENCH_REPORTERS ?? 32);
const REQUESTS = Number(process.env.STALLSCOPE_BENCH_REQUESTS ?? 1088);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** SIGKILL of the dashboards' backend that ran a query last (the writers' pool; not a LISTEN connection); its pid. */
async function killWritingBackend(url: string): Promise<number | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND backend_type = 'client backend' AND query NOT ILIKE 'LISTEN%' AND query NOT ILIKE '%advisory_lock%'
       ORDER BY query_start DESC LIMIT 1`,
    );
    const pid = r.rows[0]?.pid ?? null;
    if (pid !== null) process.kill(pid, 'SIGKILL');
    return pid;
  } finally {
    await c.end().catch(() => undefined);
  }
}

const target = await startTarget('keep-alive', 5, 4);
const cluster = await startPostgres();
const url = await cluster.freshDatabase();
// As a production database commits (the test cluster's synchronous_commit=off may forget, after the backend kill's
// crash recovery, a commit the dashboard was told of — a loss no client could prevent).
{
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET synchronous_commit = on`);
  await admin.end();
}
const dashboards = await Promise.all([
  startDashboard(undefined, { args: ['--database', url] }),
  startDashboard(undefined, { args: ['--database', url] }),
]);
const lb = await startRoundRobinProxy(
  dashboards.map((d) => d.url),
  /^POST \/api\/runs\/[^/]+\/events$/,
);
/** What the dashboards said (stderr), printed when a run was missed. */
const said: string[] = [];
dashboards.forEach((d, i) =>
  d.child.stderr?.on('data', (b: Buffer) => said.push(`[dashboard ${i}] ${b.toString().trim()}`)),
);
const dir = mkdtempSync(join(tmpdir(), 'stallscope-lb-fleet-'));
try {
  const t0 = performance.now();
  const children = Array.from({ length: REPORTERS }, (_, k) =>
    runCli(reporterArgs(target.url, REQUESTS, dir, k, lb.url)),
  );
  // The fault: once the reporters are well under way (5 batches each on average went through the balancer).
  let fault = 'none';
  const faulted = (async () => {
    while (lb.latencies.length < REPORTERS * 5) await new Promise((r) => setTimeout(r, 100));
    const pid = await killWritingBackend(url);
    fault = `backend ${pid ?? '(none found)'} killed at ${((performance.now() - t0) / 1000).toFixed(1)} s`;
  })();
  const results = await Promise.all(children);
  await faulted;
  const seconds = (performance.now() - t0) / 1000;
  const store = await openPgStore({ url });
  const problems: string[] = [];
  let exact = 0;
  try {
    for (let k = 0; k < REPORTERS; k++) {
      if (results[k].code !== 0) problems.push(`node-${k}: exit ${results[k].code}: ${results[k].out.slice(-300)}`);
      const problem = await checkReportedRun(store, dir, k).catch((e: Error) => `node-${k}: ${e.message}`);
      if (problem === null) exact++;
      else {
        // What its reporter said about the dashboard (a refusal, a retry, giving up).
        const said = results[k].out.split('\n').filter((l) => /dashboard|report|refus|retr/i.test(l));
        problems.push(`${problem}${said.length ? `; its reporter said: ${said.slice(-3).join(' | ')}` : ''}`);
      }
    }
  } finally {
    await store.close();
  }
  const alive = await Promise.all(
    dashboards.map((d) =>
      fetch(`${d.url}/api/health`).then(
        (r) => r.status === 200,
        () => false,
      ),
    ),
  );
  const ms = lb.latencies;
  console.log(
    `two dashboards behind a round-robin balancer, ${fault}: ${REPORTERS} reporters × ${REQUESTS} requests in ${seconds.toFixed(1)} s; ingest through the balancer p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms, max ${Math.max(0, ...ms).toFixed(0)} ms over ${ms.length} batches (${lb.taken.map((t) => [...t.values()].reduce((a, b) => a + b, 0)).join(' + ')} requests); dashboards up ${alive.filter(Boolean).length}/2; runs complete and stored exactly once ${exact}/${REPORTERS} ${exact === REPORTERS && alive.every(Boolean) ? 'OK' : 'MISSED'}`,
  );
  for (const p of problems.slice(0, 5)) console.log(`  ${p}`);
  if (problems.length) for (const line of said.slice(0, 20)) console.log(`  ${line.slice(0, 400)}`);
  if (exact !== REPORTERS || !alive.every(Boolean)) process.exitCode = 1;
} finally {
  await lb.close();
  for (const d of dashboards) await d.stop();
  rmSync(dir, { recursive: true, force: true });
  cluster.destroy();
  await target.close();
}
