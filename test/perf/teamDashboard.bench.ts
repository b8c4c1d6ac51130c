/**
 * Team dashboard load (`npm run bench teamDashboard`; docs/design.md#team-dashboard): N `stallscope bench
 * --report-to` processes at once (default 32 × 1,088 requests with audio at concurrency 10, as a nightly fleet
 * reports) against the reproduction server, reporting to one dashboard — on PostgreSQL (a throwaway cluster), then
 * on SQLite for comparison. Prints the ingest latency (POST /api/runs/:id/events, p50/p99/max) and the dashboard's
 * event-loop delay, and checks every event stored exactly once (test/helpers/reporterFleet.ts). Smaller:
 * STALLSCOPE_BENCH_REPORTERS=4 STALLSCOPE_BENCH_REQUESTS=200.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../helpers/postgres.ts';
import { reporterFleet, startFastRepro, type FleetFigures } from '../helpers/reporterFleet.ts';

const REPORTERS = Number(process.env.STALLSCOPE_BENCH_REPORTERS ?? 32);
const REQUESTS = Number(process.env.STALLSCOPE_BENCH_REQUESTS ?? 1088);

function print(label: string, f: FleetFigures): void {
  console.log(
    `${label}: ${REPORTERS} reporters × ${REQUESTS} requests in ${f.seconds.toFixed(1)} s; ingest p50 ${f.ingestMs.p50.toFixed(1)} ms, p99 ${f.ingestMs.p99.toFixed(1)} ms, max ${f.ingestMs.max.toFixed(1)} ms over ${f.ingestMs.batches} batches; event-loop delay p99 ${f.loopDelayMs.p99.toFixed(0)} ms, max ${f.loopDelayMs.max.toFixed(0)} ms; runs stored exactly once ${f.exact}/${REPORTERS} ${f.exact === REPORTERS ? 'OK' : 'MISSED'}`,
  );
  for (const p of f.problems.slice(0, 5)) console.log(`  ${p}`);
  if (f.exact !== REPORTERS) process.exitCode = 1;
}

const repro = await startFastRepro();
const cluster = await startPostgres();
try {
  print(
    'PostgreSQL',
    await reporterFleet({ dataDir: null, database: await cluster.freshDatabase() }, repro.url, REPORTERS, REQUESTS),
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'stallscope-fleet-sqlite-'));
  print('SQLite', await reporterFleet({ dataDir, database: null }, repro.url, REPORTERS, REQUESTS));
  rmSync(dataDir, { recursive: true, force: true });
} finally {
  cluster.destroy();
  repro.child.kill('SIGTERM');
}
