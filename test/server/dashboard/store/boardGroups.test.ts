/**
 * The board's groups counted by the database (server/dashboard/store/common/boardGroups.ts) equal the JavaScript
 * fold (shared/stalls/stallBoard.ts `groupStalls`) over the same window, on seeded generated histories, on both
 * stores: for the default window, a window cut short (the newest runs only), a one-pipeline filter and a time
 * range. Any count, list or control that differs fails. On PostgreSQL the GROUP BY reads the stall facts through
 * an index, never by a sequential scan (EXPLAIN with sequential scans priced out: only a missing index shows one).
 */
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#server/dashboard/app.ts';
import { PG_IDS, reportKeys } from '#server/dashboard/store/common/boardDetails.ts';
import { countsQuery, windowRuns, type GroupCounts } from '#server/dashboard/store/common/boardGroups.ts';
import { boardGroupCounts } from '#server/dashboard/store/common/boardScopes.ts';
import type { BoardFilter } from '#server/dashboard/store/common/records.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import { groupStalls } from '#shared/stalls/stallBoard.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { loadHistory } from '#test/perf/boardHistory.ts';

const order = (gs: GroupCounts[]) =>
  [...gs].sort((a, b) =>
    `${a.pipeline}\u0000${a.step}\u0000${a.fingerprint}` < `${b.pipeline}\u0000${b.step}\u0000${b.fingerprint}`
      ? -1
      : 1,
  );

/** What `groupStalls` gives for the same window, in the SQL answer's shape. */
async function folded(store: DashboardStore, f: BoardFilter): Promise<GroupCounts[]> {
  const { runs } = await store.board.runs(f);
  return groupStalls(runs).map((g) => ({
    pipeline: g.pipeline,
    step: g.step,
    fingerprint: g.fingerprint,
    occurrences: g.occurrences,
    firstSeen: g.firstSeen,
    lastSeen: g.lastSeen,
    scopeRuns: g.scopeRuns,
    nodes: [...g.nodes],
    runs: g.runs,
    controls: g.controls.runs,
    lastPassing: g.onset.lastPassing?.runId ?? null,
  }));
}

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

for (const kind of ['SQLite', 'PostgreSQL'] as const)
  for (const seed of [1, 7, 42])
    describe(`the board's groups by SQL on ${kind}, history seed ${seed}`, () => {
      let app: FastifyInstance;
      const end = Date.UTC(2026, 11, 1);
      beforeAll(async () => {
        const database = kind === 'PostgreSQL' ? await cluster!.freshDatabase() : null;
        app = await buildApp({ dataDir: null, database, logger: false, store: { flushIntervalMs: 10 } });
        await app.ready();
        // Few pipelines and nodes, many stalls: scopes with several fingerprints, controls on both sides.
        await loadHistory(app.store, {
          seed,
          runs: 400,
          pipelines: 3,
          nodes: 4,
          fingerprints: 5,
          stalledShare: 0.3,
          endMs: end,
        });
      }, 60_000);
      afterAll(() => app?.close());

      const windows: [string, () => BoardFilter][] = [
        ['the default window', () => ({ maxRuns: 5000 })],
        ['the newest runs only', () => ({ maxRuns: 150 })],
        ['one pipeline', () => ({ maxRuns: 5000, metadata: [['ci_pipeline', pipelineOf()]] })],
        ['a time range', () => ({ maxRuns: 5000, since: end - 200 * 86_400_000, until: end - 50 * 86_400_000 })],
      ];
      let pipeline = '';
      const pipelineOf = () => pipeline;
      beforeAll(async () => {
        const { runs } = await app.store.board.runs({ maxRuns: 1 });
        pipeline = runs[0].metadata.ci_pipeline;
      });

      for (const [name, filter] of windows)
        it(`counts what groupStalls folds: ${name}`, async () => {
          const want = await folded(app.store, filter());
          expect(want.length).toBeGreaterThan(3);
          expect(want.some((g) => g.controls.length > 0 && g.lastPassing !== null)).toBe(true);
          expect(order(await boardGroupCounts(app.store.kysely, filter()))).toEqual(order(want));
        });
    });

describe("the board's GROUP BY on PostgreSQL", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({ dataDir: null, database: await cluster!.freshDatabase(), logger: false });
    await app.ready();
    await loadHistory(app.store, { seed: 5, runs: 300, pipelines: 3, nodes: 4, fingerprints: 5 });
  }, 60_000);
  afterAll(() => app?.close());

  for (const [name, f] of [
    ['the default window', { maxRuns: 5000 }],
    ['one pipeline', { maxRuns: 5000, metadata: [['ci_pipeline', 'vllm-omni/nightly-1']] }],
  ] as [string, BoardFilter][])
    it(`reads stall_facts by an index: ${name}`, async () => {
      const text = await app.store.kysely.connection().execute(async (db) => {
        await sql`SET enable_seqscan = off`.execute(db);
        try {
          const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${countsQuery(f)}`.execute(db);
          return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
        } finally {
          await sql`RESET enable_seqscan`.execute(db);
        }
      });
      expect(text).toMatch(/(Bitmap Index Scan on|Index (Only )?Scan using) stall_facts_time/);
      expect(text).not.toMatch(/Seq Scan on stall_facts/);
    });

  /** `q`'s plan once vacuumed (a year's tables are: autovacuum), sequential scans priced out. */
  const planOf = (q: RawBuilder<unknown>) =>
    app.store.kysely.connection().execute(async (db) => {
      await sql`VACUUM ANALYZE runs, stall_reports`.execute(db);
      await sql`SET enable_seqscan = off`.execute(db);
      try {
        return (await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${q}`.execute(db)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      } finally {
        await sql`RESET enable_seqscan`.execute(db);
      }
    });

  it("reads the window's runs from runs_newest alone, never their rows", async () => {
    expect(await planOf(windowRuns({ maxRuns: 5000 }))).toMatch(/Index Only Scan using runs_newest on runs/);
  });

  it("reads a metadata filter's runs from run_metadata_kv alone", async () => {
    const plan = await planOf(windowRuns({ maxRuns: 5000, metadata: [['ci_pipeline', 'vllm-omni/nightly-1']] }));
    expect(plan).toMatch(/Index Only Scan using run_metadata_kv on run_metadata/);
  });

  it("reads the named runs' report keys from stall_reports_board alone, never the reports", async () => {
    const { rows } = await sql<{ run_id: string }>`SELECT DISTINCT run_id FROM stall_reports LIMIT 40`.execute(
      app.store.kysely,
    );
    expect(rows.length).toBeGreaterThan(10);
    const plan = await planOf(reportKeys(PG_IDS(rows.map((r) => r.run_id))));
    expect(plan).toMatch(/Index Only Scan using stall_reports_board on stall_reports/);
  });
});
