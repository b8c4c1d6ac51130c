/**
 * Team dashboard load (`npm run bench teamDashboard`; docs/design.md#team-dashboard): N `stallscope bench
 * --report-to` processes at once (default 32 × 1,088 requests with audio at concurrency 10, as a nightly fleet
 * reports) against an omni target, reporting to one dashboard — on PostgreSQL (a throwaway cluster), then
 * on SQLite for comparison. Prints the ingest latency (POST /api/runs/:id/events, p50/p99/max) and the dashboard's
 * event-loop delay, and checks every event stored exactly once (test/helpers/reporterFleet.ts). Smaller:
 * STALLSCOPE_BENCH_REPORTERS=4 STALLSCOPE_BENCH_REQUESTS=200; one store: STALLSCOPE_BENCH_STORES=sqlite.
 *
 * The target streams a pre-built omni answer (48 text events, then 4 audio chunks of 0.1 s; constantTtft.server.ts,
 * 5 ms after each request): the reproduction server computes every answer and on two cores it, not the dashboard,
 * is the limit — 32 × 1,088 through it take ~48 min. STALLSCOPE_BENCH_TARGET=repro runs against it instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../helpers/postgres.ts';
import { reporterFleet, startFastRepro, type FleetFigures } from '../helpers/reporterFleet.ts';
import { startServer } from './firstWave.ts';

const REPORTERS = Number(process.env.STALLSCOPE_BENCH_REPORTERS ?? 32);
const REQUESTS = Number(process.env.STALLSCOPE_BENCH_REQUESTS ?? 1088);

function print(label: string, f: FleetFigures): void {
  console.log(
    `${label}: ${REPORTERS} reporters × ${REQUESTS} requests in ${f.seconds.toFixed(1)} s; ingest p50 ${f.ingestMs.p50.toFixed(1)} ms, p99 ${f.ingestMs.p99.toFixed(1)} ms, max ${f.ingestMs.max.toFixed(1)} ms over ${f.ingestMs.batches} batches; event-loop delay p99 ${f.loopDelayMs.p99.toFixed(0)} ms, max ${f.loopDelayMs.max.toFixed(0)} ms (longest stall of its own work: ${f.ownStallMs.cpu.toFixed(0)} ms CPU in ${f.ownStallMs.wall.toFixed(0)} ms); runs stored exactly once ${f.exact}/${REPORTERS} ${f.exact === REPORTERS ? 'OK' : 'MISSED'}`,
  );
  for (const p of f.problems.slice(0, 5)) console.log(`  ${p}`);
  if (f.exact !== REPORTERS) process.exitCode = 1;
}

async function startTarget(): Promise<{ url: string; close(): Promise<void> }> {
  if (process.env.STALLSCOPE_BENCH_TARGET === 'repro') {
    const repro = await startFastRepro();
    return { url: repro.url, close: async () => void repro.child.kill('SIGTERM') };
  }
  // Its close ends its stdin and waits for its exit (SIGKILL after 2 s).
  return startServer('keep-alive', 5, 4);
}

const target = await startTarget();
const cluster = await startPostgres();
console.log(
  `target: ${process.env.STALLSCOPE_BENCH_TARGET === 'repro' ? 'the reproduction server' : 'pre-built omni stream (48 text events, 4 audio chunks, 5 ms)'}`,
);
const stores = (process.env.STALLSCOPE_BENCH_STORES ?? 'postgres,sqlite').split(',');
try {
  if (stores.includes('postgres'))
    print(
      'PostgreSQL',
      await reporterFleet({ dataDir: null, database: await cluster.freshDatabase() }, target.url, REPORTERS, REQUESTS),
    );
  if (stores.includes('sqlite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'stallscope-fleet-sqlite-'));
    print('SQLite', await reporterFleet({ dataDir, database: null }, target.url, REPORTERS, REQUESTS));
    rmSync(dataDir, { recursive: true, force: true });
  }
} finally {
  cluster.destroy();
  await target.close();
}
