/**
 * The runs list at a year's history (docs/design.md#year-of-history), on both stores, on a seeded
 * generated history (test/perf/boardHistory.ts):
 * - its answers (rows and order, and the total) are the ones the list gave before its indexes, for random text
 *   searches, metadata pairs, both, and pages — the queries of 0.1.x, kept below as the oracle, run beside it;
 * - the queries it runs for a metadata filter, a text search and the Compare picker read indexes, never every run
 *   (SQLite's EXPLAIN QUERY PLAN; PostgreSQL's EXPLAIN with sequential scans priced out, so that a plan still
 *   holding one has no index to use).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import type { RunFilter } from '#server/dashboard/store/common/records.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { listSql as sqliteListSql, WALK_FROM } from '#server/dashboard/store/sqlite/runListSql.ts';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { listSql as pgListSql } from '#server/dashboard/store/pg/pgRunList.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { generateHistory, loadHistory, type HistoryOptions } from '#test/perf/boardHistory.ts';
import { mulberry32 } from '#server/repro/code2wav/kernels/rng.ts';

const HISTORY: HistoryOptions = { seed: 7, runs: 400, pipelines: 6, nodes: 5, fingerprints: 8 };

/** The list's SQL before its indexes (0.1.x), SQLite: LIKE over every run, a correlated EXISTS per metadata pair. */
function oldSqlite(f: RunFilter): { count: string; page: string; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (f.text) {
    const like = `%${f.text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    const cols = ['r.id', 'r.label', 'r.model', 'r.target', 'r.metadata_json'];
    where.push(`(${cols.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    args.push(...cols.map(() => like));
  }
  for (const [k, v] of f.metadata ?? []) {
    where.push('EXISTS (SELECT 1 FROM run_metadata m WHERE m.run_id = r.id AND m.key = ? AND m.value = ?)');
    args.push(k, v);
  }
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const order = 'ORDER BY COALESCE(r.started_at_ms, r.created_at_ms) DESC, r.rowid';
  return { count: `SELECT COUNT(*) AS n FROM runs r ${w}`, page: `SELECT r.id FROM runs r ${w} ${order}`, args };
}

/** The same in PostgreSQL's SQL (numbered parameters, insertion order in `ord`). */
function oldPg(f: RunFilter): { count: string; page: string; args: unknown[] } {
  const args: unknown[] = [];
  const p = (v: unknown) => `$${args.push(v)}`;
  const where: string[] = [];
  if (f.text) {
    const like = p(`%${f.text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    const cols = ['r.id', 'r.label', 'r.model', 'r.target', 'r.metadata_json'];
    where.push(`(${cols.map((c) => `${c} LIKE ${like} ESCAPE '\\'`).join(' OR ')})`);
  }
  for (const [k, v] of f.metadata ?? [])
    where.push(`EXISTS (SELECT 1 FROM run_metadata m WHERE m.run_id = r.id AND m.key = ${p(k)} AND m.value = ${p(v)})`);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const order = 'ORDER BY COALESCE(r.started_at_ms, r.created_at_ms) DESC, r.ord';
  return { count: `SELECT COUNT(*) AS n FROM runs r ${w}`, page: `SELECT r.id FROM runs r ${w} ${order}`, args };
}

/**
 * Filters people type: substrings of a run's label, id, target or metadata (cut anywhere, of 1 to 12 characters,
 * in either case), LIKE's own wildcards and quotes, texts nothing holds; metadata pairs of the history; pages.
 */
function randomFilters(n: number): RunFilter[] {
  const runs = [...generateHistory(HISTORY)];
  const rand = mulberry32(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const filters: RunFilter[] = [];
  for (let i = 0; i < n; i++) {
    const g = pick(runs);
    const source = pick([g.run.label!, g.run.id, g.run.target!, JSON.stringify(g.run.metadata)]);
    const len = 1 + Math.floor(rand() * 12);
    const at = Math.floor(rand() * Math.max(1, source.length - len));
    let text: string | undefined = source.slice(at, at + len);
    if (rand() < 0.3) text = text.toUpperCase();
    if (rand() < 0.1) text = pick(['%', '_a', 'ly-1_', '"nightly', 'no run holds this', 'node-0%', '\\']);
    if (rand() < 0.2) text = undefined;
    const metadata: [string, string][] = [];
    if (rand() < 0.4 || text === undefined) {
      const key = pick(['ci_pipeline', 'ci_node', 'ci_step', 'ci_build']);
      metadata.push([key, g.run.metadata[key]]);
    }
    const limit = pick([12, 25, 50]);
    filters.push({ text, metadata, limit, offset: pick([0, 0, limit, 3 * limit]) });
  }
  return filters;
}

interface Side {
  store: DashboardStore;
  /** The ids the old SQL lists for a filter (that page of them) and its total. */
  old(f: RunFilter): Promise<{ ids: string[]; total: number }>;
  /** The plans of the list's count and page queries, as lines. */
  plans(f: RunFilter): Promise<{ count: string; page: string }>;
}

function sqliteSide(): Side {
  const store = new SqliteStore({ dataDir: null });
  const db = store.db;
  const plan = (sql: string, args: unknown[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('\n');
  return {
    store,
    async old(f) {
      const q = oldSqlite(f);
      const all = db
        .prepare(q.page)
        .pluck()
        .all(...q.args) as string[];
      const total = (db.prepare(q.count).get(...q.args) as { n: number }).n;
      return { ids: all.slice(f.offset, f.offset + f.limit), total };
    },
    async plans(f) {
      const q = sqliteListSql(f);
      const total = (db.prepare(q.count).get(...q.args) as { n: number }).n;
      return { count: plan(q.count, q.args), page: plan(q.page(total), q.pageArgs) };
    },
  };
}

/** Both of SQLite's page plans (sort the matches; walk the runs newest first) give the old page. */
function sqlitePagesAgree(store: SqliteStore, f: RunFilter, want: string[]): void {
  const q = sqliteListSql(f);
  for (const total of [0, WALK_FROM]) {
    const ids = (store.db.prepare(q.page(total)).all(...q.pageArgs) as { id: string }[]).map((r) => r.id);
    expect({ f, total, ids }).toEqual({ f, total, ids: want });
  }
}

async function pgSide(url: string): Promise<Side & { client: pg.Client }> {
  const store = await openPgStore({ url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const plan = async (sql: string, args: unknown[]) =>
    (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, args)).rows.map((r) => r['QUERY PLAN']).join('\n');
  return {
    store,
    client,
    async old(f) {
      const q = oldPg(f);
      const all = (await client.query<{ id: string }>(q.page, q.args)).rows.map((r) => r.id);
      const total = Number((await client.query<{ n: string }>(q.count, q.args)).rows[0].n);
      return { ids: all.slice(f.offset, f.offset + f.limit), total };
    },
    async plans(f) {
      const q = pgListSql(f);
      // A few hundred runs fit a page or two: the planner would scan them whatever the indexes. Priced out, a
      // sequential scan stays in a plan only where no index can answer.
      await client.query('SET enable_seqscan = off');
      try {
        return { count: await plan(q.count, q.args), page: await plan(q.page, q.pageArgs) };
      } finally {
        await client.query('RESET enable_seqscan');
      }
    },
  };
}

const node: RunFilter = { metadata: [['ci_node', 'gpu-node-03']], limit: 25, offset: 0 };
const search: RunFilter = { text: 'nightly-4', limit: 25, offset: 0 };
const picker: RunFilter = { text: 'build 140', limit: 12, offset: 0 };

async function sameAnswers(side: Side): Promise<void> {
  for (const f of randomFilters(120)) {
    const got = await side.store.runReads.list(f);
    const want = await side.old(f);
    expect({ f, ids: got.runs.map((r) => r.id), total: Number(got.total) }).toEqual({ f, ...want });
    if (side.store instanceof SqliteStore) sqlitePagesAgree(side.store, f, want.ids);
  }
}

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

describe('the runs list on SQLite', () => {
  let side: Side;
  beforeAll(async () => {
    side = sqliteSide();
    await loadHistory(side.store, HISTORY);
  }, 60_000);
  afterAll(() => side.store.close());

  it('answers as before: the same runs in the same order, the same total', async () => {
    await sameAnswers(side);
  });

  it('keeps its text index with the runs: a run added, relabelled or deleted is found as its row says', async () => {
    const s = side.store;
    await s.runWrites.insertWhole({ ...[...generateHistory(HISTORY)][0].run, id: 'zz-added', label: 'quokka' }, {});
    expect((await s.runReads.list({ text: 'quokka', limit: 5, offset: 0 })).runs.map((r) => r.id)).toEqual([
      'zz-added',
    ]);
    await s.runWrites.update('zz-added', { target: 'http://wombat:1' });
    expect((await s.runReads.list({ text: 'wombat', limit: 5, offset: 0 })).total).toBe(1);
    await s.runWrites.delete('zz-added');
    expect((await s.runReads.list({ text: 'quokka', limit: 5, offset: 0 })).total).toBe(0);
    await sameAnswers(side);
  });

  it('reads a metadata filter, a text search and the picker through indexes, never every run', async () => {
    for (const f of [node, search, picker]) {
      const { count, page } = await side.plans(f);
      // The count has no order to follow: any scan of the runs reads them all.
      expect(count, JSON.stringify(f)).not.toMatch(/SCAN r\b/);
      // The page may walk the runs in the happened index's order (it stops at the page's end), nothing else.
      expect(page.replace(/SCAN r USING (COVERING )?INDEX runs_happened/g, ''), JSON.stringify(f)).not.toMatch(
        /SCAN r\b/,
      );
      expect(`${count}\n${page}`).not.toMatch(/CORRELATED SCALAR SUBQUERY 1\n.*SEARCH m/);
    }
    expect((await side.plans(search)).count).toMatch(/SCAN t VIRTUAL TABLE INDEX/);
    expect((await side.plans(node)).count).toMatch(/run_metadata_kv/);
    // The first page walks the index and sorts no run to choose the page (the sorts after are its 25 rows' and
    // each row's few stall reports').
    const first = (await side.plans({ limit: 25, offset: 0 })).page.split('\n');
    expect(first.slice(0, first.indexOf('SCAN p'))).toEqual([
      'CO-ROUTINE p',
      'SCAN r USING COVERING INDEX runs_happened',
    ]);
  });
});

describe('the runs list on PostgreSQL', () => {
  let side: Side & { client: pg.Client };
  beforeAll(async () => {
    side = await pgSide(await cluster!.freshDatabase());
    await loadHistory(side.store, HISTORY);
    await side.client.query('ANALYZE');
  }, 120_000);
  afterAll(async () => {
    await side.client.end();
    await side.store.close();
  });

  it('answers as before: the same runs in the same order, the same total', async () => {
    await sameAnswers(side);
  });

  it('reads a metadata filter, a text search and the picker through indexes, never every run', async () => {
    for (const f of [node, search, picker]) {
      const { count, page } = await side.plans(f);
      expect(`${count}\n${page}`, JSON.stringify(f)).not.toMatch(/Seq Scan on (runs|run_metadata)\b/);
    }
    for (const f of [search, picker]) expect((await side.plans(f)).count).toMatch(/runs_text_trgm/);
    expect((await side.plans(node)).count).toMatch(/run_metadata_kv|run_metadata_pkey/);
    expect((await side.plans({ limit: 25, offset: 0 })).page).toMatch(/Index Scan using runs_happened/);
  });
});
