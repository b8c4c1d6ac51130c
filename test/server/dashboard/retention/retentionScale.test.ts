/**
 * Retention through a year of history (docs/design.md#retention), on both stores, with a generated
 * history (test/perf/boardHistory.ts) loaded through `db import`'s calls:
 * - a `--retain-days 90` sweep prunes exactly the runs that happened more than 90 days ago, oldest first, a page of
 *   runs and a bounded batch of rows at a time, and keeps what a pruned run keeps (its stall evidence);
 * - the query of the due runs reads them from the `runs_due` index (unpinned, unpruned runs only) and the newest N
 *   from `runs_newest`, never every run: with the pruned runs still in the table, each page otherwise stepped over
 *   all of them again (EXPLAIN; PostgreSQL's with sequential scans priced out).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pruner } from '#server/dashboard/retention/pruner.ts';
import { dueRunsQuery, type RetentionPolicy, type RetentionStore } from '#server/dashboard/store/common/retention.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { generateHistory, loadHistory, type HistoryOptions } from '#test/perf/boardHistory.ts';

const DAY = 86_400_000;
const END = Date.UTC(2026, 11, 1);
const HISTORY: HistoryOptions = { seed: 5, runs: 365, endMs: END, pipelines: 6, nodes: 4, fingerprints: 5 };
const POLICY: RetentionPolicy = { retainDays: 90, retainRuns: null };

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

/** The retention store, with what the sweep asked of it recorded. */
function recorded(s: RetentionStore) {
  const pages: number[] = [];
  const batches: { max: number; n: number }[] = [];
  const order: string[] = [];
  const store: RetentionStore = {
    dueRuns: async (p, now, limit) => {
      const ids = await s.dueRuns(p, now, limit);
      expect(ids.length).toBeLessThanOrEqual(limit);
      pages.push(ids.length);
      return ids;
    },
    pruneBatch: async (id, table, max) => {
      const n = await s.pruneBatch(id, table, max);
      batches.push({ max, n });
      return n;
    },
    markPruned: async (id, now) => {
      order.push(id);
      await s.markPruned(id, now);
    },
    setPinned: (id, p) => s.setPinned(id, p),
    retentionFacts: (id) => s.retentionFacts(id),
  };
  return { store, pages, batches, order };
}

for (const kind of ['SQLite', 'PostgreSQL'] as const) {
  describe(`retention through a year on ${kind}`, () => {
    let store: DashboardStore;
    let url = '';
    beforeAll(async () => {
      url = kind === 'PostgreSQL' ? await cluster!.freshDatabase() : '';
      store = kind === 'SQLite' ? new SqliteStore({ dataDir: null }) : await openPgStore({ url });
      await loadHistory(store, HISTORY);
    }, 120_000);
    afterAll(() => store?.close());

    /** The plan of the due runs' query, as lines. */
    async function plan(policy: RetentionPolicy): Promise<string> {
      const q = dueRunsQuery(store.kysely, policy, END, 50).compile();
      if (store instanceof SqliteStore)
        return (store.db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.parameters) as { detail: string }[])
          .map((r) => r.detail)
          .join('\n');
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query('ANALYZE runs');
        // A year of 365 runs fits a few pages: priced out, a sequential scan stays only where no index answers.
        await c.query('SET enable_seqscan = off');
        const r = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${q.sql}`, q.parameters as unknown[]);
        return r.rows.map((x) => x['QUERY PLAN']).join('\n');
      } finally {
        await c.end();
      }
    }

    it('reads the due runs and the newest N from their indexes, never every run', async () => {
      const days = await plan(POLICY);
      expect(days).toMatch(/runs_due/);
      expect(days).not.toMatch(/SCAN runs(?! USING)|Seq Scan on runs/);
      const newest = await plan({ retainDays: null, retainRuns: 100 });
      expect(newest).toMatch(/runs_due/);
      // The newest N in time order from an index (PostgreSQL may take the narrower `runs_happened` and order its
      // ties by id, now that `runs_newest` carries the board's columns too), never a sort of every run.
      expect(newest).toMatch(/runs_newest|Index Scan using runs_happened on runs newest/);
      expect(newest).not.toMatch(/SCAN (runs|newest)(?! USING)|Seq Scan on runs/);
    });

    it('--retain-days 90 prunes exactly the runs older than 90 days, oldest first, in pages and bounded batches', async () => {
      const rec = recorded(store.retention);
      const pruner = new Pruner({
        store: rec.store,
        policy: POLICY,
        isActive: () => false,
        now: () => END,
        batchRows: 1,
        maxBatchRows: 1,
        onError: (e) => {
          throw e;
        },
      });
      await pruner.sweep();
      const runs = [...generateHistory(HISTORY)];
      const old = runs.filter((g) => g.run.startedAtMs! < END - 90 * DAY).map((g) => g.run.id);
      expect(old.length).toBeGreaterThan(250);
      // Oldest first (the history is generated oldest first), each once.
      expect(rec.order).toEqual(old);
      expect(pruner.stats).toMatchObject({ runsPruned: old.length, rowsPruned: 2 * old.length, failedSweeps: 0 });
      expect(Math.max(...rec.pages)).toBe(50);
      // Each delete took at most its batch: one row here, with the loop free between them (pruner.test.ts).
      expect(rec.batches.every((b) => b.n <= b.max && b.max === 1)).toBe(true);
      const oldest = runs[0];
      expect(await store.runReads.eventsAfter(oldest.run.id, 0, 10)).toEqual([]);
      expect((await store.retention.retentionFacts(oldest.run.id))!.prunedAtMs).toBe(END);
      const newest = runs[runs.length - 1];
      expect(await store.runReads.eventsAfter(newest.run.id, 0, 10)).toHaveLength(2);
      expect((await store.retention.retentionFacts(newest.run.id))!.prunedAtMs).toBeNull();
      // What a pruned run keeps: its stall evidence (the board reads it).
      const stalled = runs.find((g) => old.includes(g.run.id) && g.stalls.length)!;
      expect(await store.runReads.stallReports(stalled.run.id)).toHaveLength(stalled.stalls.length);
      // A second sweep finds nothing due.
      expect(await store.retention.dueRuns(POLICY, END, 50)).toEqual([]);
    });
  });
}
