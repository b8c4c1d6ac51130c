/**
 * /metrics reads `run_labels` and `stall_facts` (store/common/metricsQueries.ts), kept by triggers, instead of
 * every run's row, metadata and stall reports: on a seeded history, on both stores, the exposition is the one the
 * recount of 0.1.x gives (test/helpers/metricsRecount.ts), `run_labels` holds what a recount of each run says, after
 * inserts, updates, metadata written late, pins, retention and deletes; and no query of a scrape reads the runs,
 * their events, metadata or stall reports (their plans, EXPLAIN on PostgreSQL and EXPLAIN QUERY PLAN on SQLite).
 */
import { Kysely, PostgresDialect, SqliteDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import type { StallscopeDb } from '#server/dashboard/store/common/schema.ts';
import { KyselyMetricsQueries, type MetricsQueries } from '#server/dashboard/store/common/metricsQueries.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { FleetMetrics } from '#server/dashboard/metrics/fleetMetrics.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { RecountMetricsQueries } from '#test/helpers/metricsRecount.ts';
import { generateHistory, loadHistory, type HistoryOptions } from '#test/perf/boardHistory.ts';

/** Small enough to load in seconds, with every kind of run the year has (stalled, timeouts, failed, passed). */
const HISTORY: HistoryOptions = { runs: 240, pipelines: 7, nodes: 5, fingerprints: 9, stalledShare: 0.3, seed: 17 };
/** Tables a scrape must not read: each is as large as the history (or larger). */
const HISTORY_TABLES = ['runs', 'events', 'requests', 'run_metadata', 'stall_reports'];

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

interface Side {
  store: DashboardStore;
  /** A Kysely handle on the same database that logs every statement it runs. */
  logged: Kysely<StallscopeDb>;
  statements: { sql: string; params: readonly unknown[] }[];
  /** The tables (an index: its table) one statement's plan reads. */
  tablesRead(sql: string, params: readonly unknown[]): Promise<string[]>;
  close(): Promise<void>;
}

function logInto(statements: Side['statements']) {
  return (e: LogEvent) => {
    if (e.level === 'query') statements.push({ sql: e.query.sql, params: e.query.parameters });
  };
}

function sqliteSide(): Side {
  const store = new SqliteStore({ dataDir: null });
  const statements: Side['statements'] = [];
  const logged = new Kysely<StallscopeDb>({
    dialect: new SqliteDialect({ database: store.db }),
    log: logInto(statements),
  });
  return {
    store,
    logged,
    statements,
    // The program's OpenRead cursors by root page: EXPLAIN QUERY PLAN names aliases, not tables.
    tablesRead: async (q, p) => {
      const pages = new Map(
        (
          store.db.prepare('SELECT rootpage, tbl_name FROM sqlite_schema').all() as {
            rootpage: number;
            tbl_name: string;
          }[]
        ).map((r) => [r.rootpage, r.tbl_name]),
      );
      const program = store.db.prepare(`EXPLAIN ${q}`).all(...(p as unknown[])) as { opcode: string; p2: number }[];
      return [...new Set(program.filter((o) => o.opcode === 'OpenRead').map((o) => pages.get(o.p2) ?? `page ${o.p2}`))];
    },
    close: () => store.close(),
  };
}

async function pgSide(): Promise<Side> {
  const url = await cluster!.freshDatabase();
  const store = await openPgStore({ url });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const statements: Side['statements'] = [];
  const logged = new Kysely<StallscopeDb>({ dialect: new PostgresDialect({ pool }), log: logInto(statements) });
  return {
    store,
    logged,
    statements,
    tablesRead: async (q, p) => {
      const plan = (await pool.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${q}`, p as unknown[])).rows[0];
      const tables = new Set<string>();
      const walk = (n: Record<string, unknown>) => {
        if (typeof n['Relation Name'] === 'string') tables.add(n['Relation Name']);
        for (const c of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(c);
      };
      walk((plan['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0].Plan);
      return [...tables];
    },
    close: async () => {
      await logged.destroy();
      await store.close();
    },
  };
}

/**
 * The exposition a FleetMetrics renders from these database reads (the process's own sources fixed), its lines
 * sorted: a family's series come in the order its query grouped them, which is no part of what a scrape says.
 */
async function exposition(queries: MetricsQueries): Promise<string[]> {
  const m = new FleetMetrics({
    queries,
    writeQueue: () => ({ events: 0, sinceMs: 0 }),
    failedWrites: () => 0,
    retention: () => ({ failedSweeps: 0, rowsPruned: 0 }),
    unjoinedTelemetry: () => 0,
    now: () => 1_000,
  });
  return (await m.render()).split('\n').sort();
}

/** Each run's labels as a recount from its own row, its metadata and its stall facts says them. */
async function recountedLabels(db: Kysely<StallscopeDb>): Promise<unknown[]> {
  const r = await sql<Record<string, unknown>>`SELECT r.id AS run_id, r.status, r.source, r.verdict,
      (SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_pipeline') AS pipeline,
      (SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_step') AS step,
      (SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_node') AS node,
      CASE WHEN EXISTS (SELECT 1 FROM stall_facts f WHERE f.run_id = r.id) THEN 1 ELSE 0 END AS stalled,
      r.pinned, CASE WHEN r.pruned_at_ms IS NULL THEN 0 ELSE 1 END AS pruned, r.last_seq
    FROM runs r ORDER BY r.id`.execute(db);
  return r.rows.map((x) => ({ ...x, stalled: Number(x.stalled), pinned: Number(x.pinned), pruned: Number(x.pruned) }));
}

async function storedLabels(db: Kysely<StallscopeDb>): Promise<unknown[]> {
  const rows = await db.selectFrom('run_labels').selectAll().orderBy('run_id').execute();
  return rows.map((x) => ({ ...x, stalled: Number(x.stalled), pinned: Number(x.pinned), pruned: Number(x.pruned) }));
}

/** The summary equals a recount, and the scrape says what the recount of 0.1.x says. */
async function agrees(side: Side): Promise<void> {
  const db = side.store.kysely;
  expect(await storedLabels(db)).toEqual(await recountedLabels(db));
  const recount = await exposition(new RecountMetricsQueries(db));
  expect(await exposition(new KyselyMetricsQueries(db))).toEqual(recount);
  // The store's own, as a scrape reads it (PostgreSQL: in one snapshot).
  expect(await exposition(side.store.metrics)).toEqual(recount);
}

/** Runs the year does not hold: one running without metadata, a py-spy capture that read no stack, a late pipeline. */
async function addOddRuns(store: DashboardStore): Promise<void> {
  const base = [...generateHistory(HISTORY)][0];
  await store.runWrites.insertWhole({ ...base.run, id: 'zz-running', status: 'running', metadata: {} }, {});
  const stalled = [...generateHistory(HISTORY)].find((g) => g.stalls.length > 0 && g.update.firstTimeout)!;
  await store.runWrites.insertWhole({ ...stalled.run, id: 'zz-nostack', metadata: { ci_node: 'n-x' } }, {});
  await store.admin.writeStallRows('zz-nostack', [
    {
      ...stalled.stalls[0],
      workerId: -1,
      reportJson: JSON.stringify({ source: 'py-spy', stackError: 'permission denied' }),
    },
  ]);
  // A first timeout only: the run's one piece of evidence is phase-only.
  await store.runWrites.insertWhole(
    { ...base.run, id: 'zz-timeout', metadata: { ci_pipeline: 'late', ci_node: 'n-y' } },
    { verdict: 'failed_closed', firstTimeout: stalled.update.firstTimeout },
  );
}

for (const [name, open] of [
  ['SQLite', async () => sqliteSide()],
  ['PostgreSQL', pgSide],
] as const) {
  describe(`/metrics from run_labels on ${name}`, () => {
    let side: Side;
    beforeAll(async () => {
      side = await open();
      await loadHistory(side.store, HISTORY);
      await addOddRuns(side.store);
    }, 60_000);
    afterAll(() => side.close());

    it('says what the recount of every run says, and run_labels is each run recounted', async () => {
      const text = (await exposition(new KyselyMetricsQueries(side.store.kysely))).join('\n');
      // The history is in it: every outcome, a phase-only group, an unset node.
      expect(text).toMatch(/stallscope_job_runs\{pipeline="late",step="[^"]+",outcome="stalled"\} 1/);
      expect(text).toMatch(/stallscope_stall_occurrences\{fingerprint="[0-9a-f]{12}",phase="\w+",node="n-y"\} 1/);
      expect(text).toMatch(/stallscope_runs_by_status\{status="running",source="cli"\} 1/);
      await agrees(side);
    });

    it('keeps agreeing after updates, late metadata, pins, retention and deletes', async () => {
      const s = side.store;
      const ids = (await s.admin.allRunIds()).sort();
      await s.runWrites.update('zz-running', { status: 'finished', verdict: 'passed', lastSeq: 9 });
      await s.kysely
        .insertInto('run_metadata')
        .values([
          { run_id: 'zz-running', key: 'ci_pipeline', value: 'late' },
          { run_id: 'zz-running', key: 'ci_step', value: 'smoke' },
        ])
        .execute();
      await s.kysely
        .updateTable('run_metadata')
        .set({ value: 'n-z' })
        .where('run_id', '=', 'zz-nostack')
        .where('key', '=', 'ci_node')
        .execute();
      await s.retention.setPinned(ids[3], true);
      for (const id of ids.slice(0, 40)) {
        await s.retention.pruneBatch(id, 'events', 1_000);
        await s.retention.markPruned(id, 5);
      }
      // A run's evidence removed whole, facts too (what a rebuild of the facts does when it finds none): not stalled.
      const gone = (await s.kysely.selectFrom('stall_facts').select('run_id').where('kind', '=', 'stack').execute())[0];
      await s.kysely.deleteFrom('stall_reports').where('run_id', '=', gone.run_id).execute();
      await s.kysely.updateTable('runs').set({ first_timeout_json: null }).where('id', '=', gone.run_id).execute();
      await s.kysely.deleteFrom('stall_facts').where('run_id', '=', gone.run_id).execute();
      for (const id of ids.slice(40, 60)) await s.runWrites.delete(id);
      expect((await storedLabels(s.kysely)).length).toBe(ids.length - 20);
      await agrees(side);
    });

    it("reads neither the runs, their metadata, events nor stall reports: only the summary's small rows", async () => {
      if (side.store.kind === 'postgres') await sql`ANALYZE`.execute(side.store.kysely);
      side.statements.length = 0;
      await new KyselyMetricsQueries(side.logged).readAll();
      expect(side.statements.length).toBeGreaterThanOrEqual(8);
      for (const st of side.statements) {
        const tables = await side.tablesRead(st.sql, st.params);
        expect(tables.length).toBeGreaterThan(0);
        expect({ sql: st.sql, read: tables.filter((t) => HISTORY_TABLES.includes(t)) }).toEqual({
          sql: st.sql,
          read: [],
        });
      }
    });
  });
}

describe('a scrape on PostgreSQL', () => {
  it('reads every family on one pooled connection, in one read-only snapshot', async () => {
    const store = await openPgStore({ url: await cluster!.freshDatabase() });
    try {
      const seen: string[] = [];
      const texts: string[] = [];
      store.pool.on('acquire', (client: pg.PoolClient) => {
        seen.push('acquire');
        const query = client.query.bind(client) as (...a: unknown[]) => unknown;
        // Every statement the connection is sent, in order (config objects or text).
        client.query = ((...a: unknown[]) => {
          texts.push(typeof a[0] === 'string' ? a[0] : (a[0] as { text: string }).text);
          return query(...a);
        }) as typeof client.query;
      });
      const read = await store.metrics.readAll();
      expect(read.byStatus).toEqual([]);
      // Eight statements, one connection taken from the pool once (unsnapshotted, each statement takes its own).
      expect(seen).toEqual(['acquire']);
      expect(texts[0]).toMatch(/^start transaction isolation level repeatable read read only$/i);
      expect(texts.length).toBeGreaterThanOrEqual(6);
      expect(texts.at(-1)).toMatch(/^commit$/i);
    } finally {
      await store.close();
    }
  });
});
