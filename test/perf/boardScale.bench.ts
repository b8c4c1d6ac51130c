/**
 * A year of a CI fleet's history (`npm run bench boardScale`; docs/performance.md#year-of-history): 20,000
 * generated runs (boardHistory.ts) loaded into each store — SQLite in a data folder, then a throwaway PostgreSQL —
 * and a dashboard in this process on it, so its event loop and its own CPU are measured here. Prints, with the target beside each:
 * `GET /api/stalls` (the default window — kept, and read again after a change before each request — one pipeline) and `GET /api/runs` (first page, a metadata filter, a text
 * search, the Compare picker's search) p99 over 50 requests, a `/metrics` scrape (the first, which reads the
 * database, the p99 of the next, and 20 that each read the database: median and p99), and — while 5 viewers poll
 * the board every second — 8 reporters' 10-event batches, five a second each: ingest p99 and the loop's delay p99
 * beside the dashboard's longest stall of its own work (main-thread CPU); then the same figures while retention
 * prunes the year (boardRetention.ts). Smaller: STALLSCOPE_BENCH_RUNS=2000; one store:
 * STALLSCOPE_BENCH_STORES=sqlite; the load's length: STALLSCOPE_BENCH_LOAD_S (default 20).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '#server/dashboard/app.ts';
import { openStore } from '#server/dashboard/store/openStore.ts';
import { startPostgres } from '../helpers/postgres.ts';
import { ownStalls } from '../helpers/reporterFleet.ts';
import { generateHistory, loadHistory, type HistoryOptions } from './boardHistory.ts';
import { duringRetention, freshScrapes, line, pct, printScrapes, recordIngest } from './boardRetention.ts';

const RUNS = Number(process.env.STALLSCOPE_BENCH_RUNS ?? 20_000);
const LOAD_S = Number(process.env.STALLSCOPE_BENCH_LOAD_S ?? 20);
const history: HistoryOptions = { runs: RUNS };

/** Values the queries look for, taken from the history itself so every filter matches runs. */
function probes(): { pipeline: string; node: string; commit: string; build: string } {
  const it = generateHistory(history);
  let g = it.next().value!;
  for (let i = 0; i < Math.floor(RUNS / 2); i++) g = it.next().value ?? g;
  const m = g.run.metadata;
  return { pipeline: m.ci_pipeline, node: m.ci_node, commit: m.ci_commit.slice(0, 10), build: m.ci_build };
}

async function timed(url: string, path: string, n = 50): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch(url + path);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}`);
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** `timed`, with the board version moved before each request: every board is counted by the database again. */
async function timedAfterChange(app: FastifyInstance, url: string, path: string, n = 50): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    await sql`UPDATE board_version SET v = v + 1 WHERE id = 1`.execute(app.store.kysely);
    ms.push(...(await timed(url, path, 1)));
  }
  return ms;
}

function clients(url: string, boardPath: string, seconds = LOAD_S) {
  return new Promise<{ ingestMs: number[]; boardMs: number[]; errors: string[]; errorCount: number }>(
    (resolve, reject) => {
      const w = new Worker(new URL('./boardClients.worker.mjs', import.meta.url), {
        workerData: { url, boardPath, viewers: 5, reporters: 8, batchEvents: 10, batchesPerS: 5, seconds },
      });
      w.once('message', (m) => {
        resolve(m as never);
        void w.terminate();
      });
      w.once('error', reject);
    },
  );
}

async function measure(label: string, opts: { dataDir: string | null; database: string | null }): Promise<void> {
  const t0 = performance.now();
  const store = await openStore(opts);
  const n = await loadHistory(store, history);
  await store.close();
  console.log(`${label}: ${n} runs loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s (db import's calls)`);
  // As the CLI's dashboard: the default board read once at ready (docs/design.md#board-cache).
  const app = await buildApp({ ...opts, logger: false, warmBoard: true });
  const ingest = recordIngest(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  try {
    const p = probes();
    const pipeline = `metadata=${encodeURIComponent(`ci_pipeline=${p.pipeline}`)}`;
    const first = await timed(url, '/metrics', 1);
    console.log(line('/metrics, first scrape (reads the database)', first[0], 100, 'wall'));
    console.log(line('/metrics, next 50 scrapes', pct(await timed(url, '/metrics'), 99), 100));
    printScrapes('at rest', await freshScrapes(app.store));
    console.log(line('GET /api/stalls (default window)', pct(await timed(url, '/api/stalls'), 99), 150));
    // The same with a change before each request (the version moved, as a new stall would): the database's count.
    const changed = await timedAfterChange(app, url, '/api/stalls');
    console.log(line('GET /api/stalls (default window), read again after each change', pct(changed, 99), 150));
    console.log(line(`GET /api/stalls?${pipeline}`, pct(await timed(url, `/api/stalls?${pipeline}`), 99), 150));
    console.log(line('GET /api/runs first page', pct(await timed(url, '/api/runs?limit=25&offset=0'), 99), 100));
    const node = `metadata=${encodeURIComponent(`ci_node=${p.node}`)}`;
    console.log(line(`GET /api/runs?${node}`, pct(await timed(url, `/api/runs?${node}&limit=25`), 99), 100));
    const q = `q=${encodeURIComponent(p.build)}`;
    console.log(line(`GET /api/runs?${q} (text search)`, pct(await timed(url, `/api/runs?${q}&limit=25`), 99), 100));
    const picker = `q=${p.commit}&limit=12`;
    console.log(line(`Compare picker ?${picker}`, pct(await timed(url, `/api/runs?${picker}`), 99), 100));
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const stalls = ownStalls();
    const load = await clients(url, '/api/stalls');
    loop.disable();
    const own = stalls.stop();
    console.log(
      `  while 5 viewers poll the board every second (${load.boardMs.length} boards, p99 ${pct(load.boardMs, 99).toFixed(0)} ms), 8 reporters × 10-event batches 5/s for ${LOAD_S} s:`,
    );
    console.log(
      line(
        `ingest (${ingest.length} batches, server-side)`,
        pct(
          ingest.map((b) => b.ms),
          99,
        ),
        100,
      ),
    );
    console.log(line(`ingest as the reporters saw it (${load.ingestMs.length} batches)`, pct(load.ingestMs, 99), 100));
    console.log(
      `${line('event-loop delay', loop.percentile(99) / 1e6, 50)}; max ${(loop.max / 1e6).toFixed(0)} ms; the dashboard's longest stall of its own work: ${own.cpu.toFixed(0)} ms CPU in ${own.wall.toFixed(0)} ms`,
    );
    if (load.errorCount) console.log(`  ${load.errorCount} client errors: ${load.errors.join(' | ')}`);
  } finally {
    await app.close();
  }
  await duringRetention(opts, timed, (url) => clients(url, '/api/stalls', Math.min(LOAD_S, 6)));
}

const stores = (process.env.STALLSCOPE_BENCH_STORES ?? 'sqlite,postgres').split(',');
console.log(`history: ${RUNS} runs over 365 days, 40 pipelines × 3 steps, 30 nodes, 20 % stalled over 40 fingerprints`);
if (stores.includes('sqlite')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'stallscope-board-scale-'));
  try {
    await measure('SQLite', { dataDir, database: null });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (stores.includes('postgres')) {
  const cluster = await startPostgres();
  try {
    await measure('PostgreSQL', { dataDir: null, database: await cluster.freshDatabase() });
  } finally {
    cluster.destroy();
  }
}
