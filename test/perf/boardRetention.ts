/**
 * boardScale.bench.ts's /metrics and retention figures (docs/performance.md#year-of-history): a scrape that reads
 * the database each time (median and p99 over 20), and the same figures as the bench's first part measured while
 * retention prunes the year by `--retain-days 90` at the pruner's default pace — each batch's rows and wall time
 * recorded, so "bounded" is a printed maximum, not a claim.
 */
import { loadavg } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#server/dashboard/app.ts';
import { FleetMetrics } from '#server/dashboard/metrics/fleetMetrics.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';

export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
export const line = (what: string, ms: number, target: number, unit = 'p99'): string =>
  `  ${what}: ${unit} ${ms.toFixed(1)} ms (target ≤ ${target}) ${ms <= target ? 'OK' : 'ABOVE'}`;
const load = () => `load ${loadavg()[0].toFixed(1)}`;

/** `n` scrapes that each read the database (what a scrape costs when its last read is older than 10 s). */
export async function freshScrapes(store: DashboardStore, n = 20): Promise<number[]> {
  const m = new FleetMetrics({
    queries: store.metrics,
    writeQueue: () => ({ events: 0, sinceMs: 0 }),
    failedWrites: () => 0,
    retention: () => ({ failedSweeps: 0, rowsPruned: 0 }),
    unjoinedTelemetry: () => 0,
    readEveryMs: 0,
    waitForReadMs: 60_000,
  });
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await m.render();
    ms.push(performance.now() - t0);
  }
  return ms;
}

export function printScrapes(what: string, ms: number[]): void {
  console.log(
    `${line(`/metrics, ${what}, each reading the database (${ms.length})`, pct(ms, 50), 100, 'median')}; ` +
      `p99 ${pct(ms, 99).toFixed(1)} ms; ${load()}`,
  );
}

/** A sample, and when it ended (performance.now()). */
type Sample = { endAt: number; ms: number };

/** The reporters' event batches this dashboard answers from now on: each one's server-side time and when it ended. */
export function recordIngest(app: FastifyInstance): Sample[] {
  const batches: Sample[] = [];
  app.addHook('onResponse', async (req, reply) => {
    if (req.method === 'POST' && req.url.endsWith('/events'))
      batches.push({ endAt: performance.now(), ms: reply.elapsedTime });
  });
  return batches;
}

type Timed = (url: string, path: string, n?: number) => Promise<number[]>;

/**
 * A dashboard on the loaded year with `--retain-days 90` (the pruner's default pace), its sweep started by hand:
 * while it prunes, the scrape, the board, the runs list, and (`clients`) ingest under the board's viewers.
 */
export async function duringRetention(
  opts: { dataDir: string | null; database: string | null },
  timed: Timed,
  clients: (url: string) => Promise<{ ingestMs: number[]; boardMs: number[] }>,
): Promise<void> {
  const app: FastifyInstance = await buildApp({
    ...opts,
    logger: false,
    warmBoard: true,
    retention: { policy: { retainDays: 90, retainRuns: null }, firstDelayMs: 3_600_000 },
  });
  const batches: { ms: number; rows: number; size: number }[] = [];
  const inner = app.store.retention;
  const pruneBatch = inner.pruneBatch.bind(inner);
  inner.pruneBatch = async (id, table, max) => {
    const t0 = performance.now();
    const rows = await pruneBatch(id, table, max);
    batches.push({ ms: performance.now() - t0, rows, size: max });
    return rows;
  };
  // With when each ended, so the figure counts only the batches the sweep overlapped.
  const ingest = recordIngest(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  try {
    const t0 = performance.now();
    let sweepEndAt = Infinity;
    const sweep = app.pruner.sweep().finally(() => (sweepEndAt = performance.now()));
    const still = () => (sweepEndAt === Infinity ? 'pruning throughout' : 'THE SWEEP ENDED BEFORE THIS FIGURE');
    console.log(`  while retention (--retain-days 90, default pace) prunes the year:`);
    // Each figure from the samples that ended while the sweep ran, with how many those were; none is said so.
    const timedAt = async (n: number, one: () => Promise<number>) => {
      const xs: Sample[] = [];
      for (let i = 0; i < n; i++) xs.push({ ms: await one(), endAt: performance.now() });
      return xs;
    };
    const whileSweeping = (what: string, xs: Sample[], say: (ms: number[], of: string) => void) => {
      const ms = xs.filter((x) => x.endAt <= sweepEndAt).map((x) => x.ms);
      if (ms.length) say(ms, `${ms.length} of ${xs.length} while it ran`);
      else console.log(`  ${what}, during pruning: NOT MEASURED (the sweep had ended)`);
    };
    const scrapes = await timedAt(20, async () => (await freshScrapes(app.store, 1))[0]);
    whileSweeping('/metrics', scrapes, (ms, of) => printScrapes(`during pruning (${of})`, ms));
    const boards = await timedAt(20, async () => (await timed(url, '/api/stalls', 1))[0]);
    whileSweeping('GET /api/stalls', boards, (ms, of) =>
      console.log(line(`GET /api/stalls (default window), during pruning (${of})`, pct(ms, 99), 150)),
    );
    const runs = await timedAt(50, async () => (await timed(url, '/api/runs?limit=25', 1))[0]);
    whileSweeping('GET /api/runs first page', runs, (ms, of) =>
      console.log(line(`GET /api/runs first page, during pruning (${of})`, pct(ms, 99), 100)),
    );
    // Ingest last, for a shorter time than the first part's: SQLite's sweep lasts ~10 s on this machine.
    const l = await clients(url);
    whileSweeping('ingest', ingest, (ms, of) =>
      console.log(line(`ingest during pruning, server-side (${of})`, pct(ms, 99), 100)),
    );
    console.log(
      `${line(`ingest as the reporters saw it, during pruning (${l.ingestMs.length} batches)`, pct(l.ingestMs, 99), 100)}; board p99 ${pct(l.boardMs, 99).toFixed(0)} ms; ${still()}`,
    );
    await sweep;
    const s = app.pruner.stats;
    const worst = batches.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, rows: 0, size: 0 });
    console.log(
      `  the sweep: ${s.runsPruned} runs, ${s.rowsPruned} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s, ` +
        `${batches.length} batches of at most ${Math.max(0, ...batches.map((b) => b.size))} rows (largest deleted ` +
        `${Math.max(0, ...batches.map((b) => b.rows))}); batch wall p99 ${pct(
          batches.map((b) => b.ms),
          99,
        ).toFixed(1)} ms, max ${worst.ms.toFixed(1)} ms; ${load()}`,
    );
    printScrapes('after pruning', await freshScrapes(app.store));
  } finally {
    await app.close();
  }
}
