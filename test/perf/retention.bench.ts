/**
 * Retention benchmark (`npm run bench retention`, docs/design.md#retention):
 * a real database file holding 1,000,000 prunable rows (events and request
 * rows of 20 ended runs) is pruned by `--retain-runs 1` while the dashboard
 * serves; printed: the event loop's delay while pruning (p50, p99, max;
 * the contract is under 100 ms), a request's latency meanwhile, and the
 * pruning rate.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '#server/dashboard/app.ts';
import { newRun } from '../helpers/sampleEvents.ts';

const RUNS = 20;
const EVENTS_PER_RUN = 40_000;
const ROWS_PER_RUN = 10_000; // 20 × 50,000 = 1,000,000 rows
const LIMIT_MS = 100;

const EVENT_JSON = JSON.stringify({
  seq: 0,
  event: { type: 'request.first_token', t: 1234.5, index: 42, ttftS: 0.0123, requestId: 'x'.repeat(36) },
});
const ROW_JSON = JSON.stringify({
  index: 0,
  requestId: 'y'.repeat(36),
  status: 'completed',
  queuedT: 1,
  sentT: 2,
  firstTokenT: 3,
  firstAudioT: 4,
  endT: 5,
  ttftS: 0.01,
  e2elS: 0.5,
  audioTtfpS: 0.1,
  audioDurationS: 2.5,
  outputTokens: 120,
  promptLen: 512,
  attempts: 1,
  error: '',
  timeoutKind: null,
});

const dataDir = mkdtempSync(join(tmpdir(), 'stallscope-bench-retention-'));
try {
  // Seeded in SQL, in a first app on the file: the benchmark measures the pruning, not the seeding.
  const seed = await buildApp({ dataDir });
  const store = sqliteOf(seed.store);
  const db = store.db;
  const t0 = performance.now();
  const ev = db.prepare('INSERT INTO events (run_id, seq, json) VALUES (?,?,?)');
  const rq = db.prepare('INSERT INTO requests (run_id, idx, row_json, status) VALUES (?,?,?,?)');
  for (let r = 0; r <= RUNS; r++) {
    const id = `run-${String(r).padStart(2, '0')}`;
    store.runs.insertRun(newRun(id, { status: 'finished', createdAtMs: 1_700_000_000_000 + r * 60_000 }));
    db.transaction(() => {
      for (let s = 1; s <= EVENTS_PER_RUN; s++) ev.run(id, s, EVENT_JSON);
      for (let i = 0; i < ROWS_PER_RUN; i++) rq.run(id, i, ROW_JSON, 'completed');
    })();
    store.runs.update(id, { lastSeq: EVENTS_PER_RUN });
  }
  await seed.close();
  console.log(
    `seeded ${(RUNS + 1) * (EVENTS_PER_RUN + ROWS_PER_RUN)} rows (${RUNS} runs to prune, 1 kept) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const app = await buildApp({
    dataDir,
    retention: { policy: { retainDays: null, retainRuns: 1 }, firstDelayMs: 3_600_000 },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${addr && typeof addr === 'object' ? addr.port : 0}`;
  // Each delete timed: the longest is what the event loop waits behind.
  const batches: { ms: number; cpuMs: number; size: number }[] = [];
  const inner = app.store.retention;
  const pruneBatch = inner.pruneBatch.bind(inner);
  inner.pruneBatch = async (id, table, max) => {
    const s = performance.now();
    const cpu = process.cpuUsage();
    const n = await pruneBatch(id, table, max);
    const used = process.cpuUsage(cpu);
    // CPU time is what the batch costs whatever else runs on the machine; wall time includes being preempted.
    batches.push({ ms: performance.now() - s, cpuMs: (used.user + used.system) / 1000, size: max });
    return n;
  };
  // The same client and monitor for 5 s without pruning: on a shared machine, what the loop suffers anyway.
  const base = monitorEventLoopDelay({ resolution: 5 });
  base.enable();
  const baseEnd = performance.now() + 5000;
  while (performance.now() < baseEnd) {
    await (await fetch(`${url}/api/runs?limit=5`)).arrayBuffer();
    await new Promise((r) => setTimeout(r, 20));
  }
  base.disable();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const latencies: number[] = [];
  let pruning = true;
  // A client reading the runs list throughout: what a user would feel.
  const client = (async () => {
    while (pruning) {
      const s = performance.now();
      await (await fetch(`${url}/api/runs?limit=5`)).arrayBuffer();
      latencies.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  loop.enable();
  const started = performance.now();
  await app.pruner.sweep();
  const seconds = (performance.now() - started) / 1000;
  loop.disable();
  pruning = false;
  await client;
  const ms = (ns: number) => ns / 1e6;
  const sorted = [...latencies].sort((a, b) => a - b);
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const { rowsPruned, runsPruned } = app.pruner.stats;
  // On a shared machine the delay is mostly other processes' CPU: the load says how shared it was.
  console.log(
    `load average during the run: ${loadavg()[0].toFixed(1)} (1 min) on ${(await import('node:os')).cpus().length} cores`,
  );
  console.log(
    `pruned ${rowsPruned} rows of ${runsPruned} runs in ${seconds.toFixed(1)} s (${Math.round(rowsPruned / seconds)} rows/s)`,
  );
  console.log(
    `event-loop delay while pruning: p50 ${ms(loop.percentile(50)).toFixed(1)} ms, p99 ${ms(loop.percentile(99)).toFixed(1)} ms, max ${ms(loop.max).toFixed(1)} ms (limit ${LIMIT_MS} ms: ${ms(loop.max) < LIMIT_MS ? 'OK' : 'MISSED'})`,
  );
  console.log(
    `event-loop delay without pruning (5 s, same client): p50 ${ms(base.percentile(50)).toFixed(1)} ms, p99 ${ms(base.percentile(99)).toFixed(1)} ms, max ${ms(base.max).toFixed(1)} ms`,
  );
  console.log(
    `GET /api/runs meanwhile: ${latencies.length} requests, p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${sorted[sorted.length - 1]?.toFixed(1)} ms`,
  );
  const worst = batches.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, cpuMs: 0, size: 0 });
  const cpus = batches.map((b) => b.cpuMs).sort((a, b) => a - b);
  const sizes = batches.map((b) => b.size).sort((a, b) => a - b);
  console.log(
    `${batches.length} batches: size p50 ${sizes[Math.floor(sizes.length / 2)]} rows, longest ${worst.ms.toFixed(1)} ms wall (${worst.size} rows); CPU per batch p50 ${cpus[Math.floor(cpus.length / 2)].toFixed(1)} ms, p99 ${cpus[Math.floor(cpus.length * 0.99)].toFixed(1)} ms, max ${cpus[cpus.length - 1].toFixed(1)} ms`,
  );
  const left = sqliteOf(app.store)
    .db.prepare('SELECT (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM requests) AS n')
    .get() as {
    n: number;
  };
  console.log(`rows left: ${left.n} (the kept run's ${EVENTS_PER_RUN + ROWS_PER_RUN})`);
  await app.close();
  if (ms(loop.max) >= LIMIT_MS || rowsPruned !== RUNS * (EVENTS_PER_RUN + ROWS_PER_RUN)) process.exitCode = 1;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
