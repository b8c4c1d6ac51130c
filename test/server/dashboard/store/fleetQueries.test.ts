/**
 * The fleet's store queries (tokens, retention, /metrics) at the store level,
 * through Kysely only: the suite takes a factory of a migrated database, so the
 * same cases run on both stores' databases (SQLite, and PostgreSQL through its store's `kysely`).
 * Seeds are written through Kysely too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, SqliteDialect } from 'kysely';
import { openDb } from '#server/dashboard/store/sqlite/db.ts';
import type { StallscopeDb } from '#server/dashboard/store/common/schema.ts';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { KyselyTokenStore } from '#server/dashboard/store/common/tokens.ts';
import { KyselyRetentionStore } from '#server/dashboard/store/common/retention.ts';
import { KyselyMetricsQueries } from '#server/dashboard/store/common/metricsQueries.ts';

type FleetDb = Kysely<StallscopeDb>;

interface FleetDbFactory {
  name: string;
  open: () => Promise<{ db: FleetDb; close: () => Promise<void> }>;
}

const sqlite: FleetDbFactory = {
  name: 'SQLite',
  async open() {
    const raw = openDb(null);
    return {
      db: new Kysely<StallscopeDb>({ dialect: new SqliteDialect({ database: raw }) }),
      close: async () => {
        raw.close();
      },
    };
  },
};

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

/** The PostgreSQL store's own handle on a fresh, migrated database of a throwaway cluster. */
const postgres: FleetDbFactory = {
  name: 'PostgreSQL',
  async open() {
    const store = await openPgStore({ url: await cluster!.freshDatabase() });
    return { db: store.kysely, close: () => store.close() };
  },
};

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

async function run(
  db: FleetDb,
  id: string,
  o: { at: number; status?: string; verdict?: string | null; meta?: Record<string, string>; rows?: number },
): Promise<void> {
  await db
    .insertInto('runs')
    .values({
      id,
      source: 'cli',
      status: o.status ?? 'finished',
      verdict: o.verdict === undefined ? 'passed' : o.verdict,
      created_at_ms: o.at,
      started_at_ms: o.at,
      finished_at_ms: o.at + 1000,
      last_seq: o.rows ?? 0,
      pinned: 0,
      pruned_at_ms: null,
      reported_by_token: null,
    })
    .execute();
  for (const [key, value] of Object.entries(o.meta ?? {}))
    await db.insertInto('run_metadata').values({ run_id: id, key, value }).execute();
  for (let i = 0; i < (o.rows ?? 0); i++) {
    await db
      .insertInto('events')
      .values({ run_id: id, seq: i + 1, json: '{}' })
      .execute();
    await db.insertInto('requests').values({ run_id: id, idx: i, row_json: '{}', status: 'completed' }).execute();
  }
}

async function stall(db: FleetDb, runId: string, opId: number, fingerprint: string, report = '{}'): Promise<void> {
  await db
    .insertInto('stall_reports')
    .values({
      run_id: runId,
      worker_id: opId < 0 ? -1 : 0,
      op_id: opId,
      seq: 1,
      phase: 'hift',
      report_json: report,
      fingerprint,
    })
    .execute();
}

const count = async (db: FleetDb, table: 'events' | 'requests', runId: string) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('run_id', '=', runId)
        .executeTakeFirstOrThrow()
    ).n,
  );

for (const factory of [sqlite, postgres]) {
  describe(`fleet queries on ${factory.name}`, () => {
    const withDb = (fn: (db: FleetDb) => Promise<void>) => async () => {
      const { db, close } = await factory.open();
      try {
        await fn(db);
      } finally {
        await close();
      }
    };

    it(
      'tokens: found by hash, one unrevoked per name, revoked once, touched',
      withDb(async (db) => {
        const t = new KyselyTokenStore(db);
        const base = { scope: 'report' as const, prefix: 'sst_report_abcd', createdAtMs: 1 };
        expect(await t.create({ ...base, id: 'tok_1', name: 'nightly', hash: 'h1' })).toBe(true);
        expect(await t.create({ ...base, id: 'tok_2', name: 'nightly', hash: 'h2' })).toBe(false);
        expect(await t.byHash('h1')).toEqual({ id: 'tok_1', scope: 'report', revokedAtMs: null });
        expect(await t.byHash('nope')).toBeNull();
        expect((await t.revoke('tok_1', 50))?.revokedAtMs).toBe(50);
        expect((await t.revoke('tok_1', 60))?.revokedAtMs).toBe(50);
        expect(await t.revoke('tok_x', 60)).toBeNull();
        expect(await t.create({ ...base, id: 'tok_3', name: 'nightly', hash: 'h3', createdAtMs: 2 })).toBe(true);
        await t.touch('tok_3', 99);
        await run(db, 'r1', { at: 1 });
        expect(await t.runReporter('r1')).toBeNull();
        await t.setRunReporter('r1', 'tok_3');
        expect(await t.runReporter('r1')).toBe('tok_3');
        expect(await t.runReporter('none')).toBeUndefined();
        expect((await t.list()).map((k) => [k.id, k.revokedAtMs, k.lastUsedAtMs])).toEqual([
          ['tok_1', 50, null],
          ['tok_3', null, 99],
        ]);
      }),
    );

    it(
      'retention: due runs by age and by rank, never pinned, running or pruned; batches; facts',
      withDb(async (db) => {
        const r = new KyselyRetentionStore(db);
        await run(db, 'a', { at: NOW - 30 * DAY, rows: 5 });
        await run(db, 'b', { at: NOW - 20 * DAY, rows: 5 });
        await run(db, 'c', { at: NOW - 10 * DAY, rows: 5 });
        await run(db, 'd', { at: NOW - DAY, rows: 5 });
        await run(db, 'live', { at: NOW - 40 * DAY, status: 'running' });
        const policy = (retainDays: number | null, retainRuns: number | null) => ({ retainDays, retainRuns });
        expect(await r.dueRuns(policy(null, null), NOW, 10)).toEqual([]);
        expect(await r.dueRuns(policy(15, null), NOW, 10)).toEqual(['a', 'b']);
        // The newest two of all runs (the running one counts, as it happened) keep their rows.
        expect(await r.dueRuns(policy(null, 2), NOW, 10)).toEqual(['a', 'b']);
        expect(await r.dueRuns(policy(null, 1), NOW, 10)).toEqual(['a', 'b', 'c']);
        expect(await r.dueRuns(policy(25, 3), NOW, 10)).toEqual(['a']); // b is within both
        expect(await r.dueRuns(policy(null, 1), NOW, 2)).toEqual(['a', 'b']);
        expect(await r.setPinned('a', true)).toBe(true);
        expect(await r.setPinned('zzz', true)).toBe(false);
        expect(await r.dueRuns(policy(15, null), NOW, 10)).toEqual(['b']);
        expect(await r.pruneBatch('b', 'events', 2)).toBe(2);
        expect(await count(db, 'events', 'b')).toBe(3);
        expect(await r.pruneBatch('b', 'events', 10)).toBe(3);
        expect(await r.pruneBatch('b', 'requests', 10)).toBe(5);
        expect(await count(db, 'events', 'c')).toBe(5);
        await r.markPruned('b', NOW);
        expect(await r.dueRuns(policy(15, null), NOW, 10)).toEqual([]);
        expect(await r.retentionFacts('a')).toEqual({ pinned: true, prunedAtMs: null });
        expect(await r.retentionFacts('b')).toEqual({ pinned: false, prunedAtMs: NOW });
        expect(await r.retentionFacts('zzz')).toBeNull();
      }),
    );

    it(
      'metrics: runs by verdict and pipeline, stall runs by fingerprint and node (a run once), events, retention',
      withDb(async (db) => {
        const m = new KyselyMetricsQueries(db);
        await run(db, 'a', { at: 1, verdict: 'failed_closed', meta: { ci_pipeline: 'p', ci_node: 'n1' }, rows: 3 });
        await run(db, 'b', { at: 2, verdict: 'failed_closed', meta: { ci_pipeline: 'p', ci_node: 'n2' }, rows: 4 });
        await run(db, 'c', { at: 3, verdict: 'passed', meta: { ci_pipeline: 'p', ci_node: 'n1' } });
        await run(db, 'd', { at: 4, verdict: null, status: 'running' });
        await stall(db, 'a', 1, 'fp1');
        await stall(db, 'a', 2, 'fp1'); // the same run again: counts once
        await stall(db, 'b', 1, 'fp1');
        await stall(db, 'b', -1, 'fp2', '{"stackError":"permission denied"}'); // a capture that read nothing
        await new KyselyRetentionStore(db).setPinned('c', true);
        await new KyselyRetentionStore(db).markPruned('a', 5);
        const sort = <T>(xs: T[]) => [...xs].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
        expect(sort(await m.runsByVerdictAndPipeline())).toEqual(
          sort([
            { verdict: 'failed_closed', pipeline: 'p', runs: 2 },
            { verdict: 'passed', pipeline: 'p', runs: 1 },
            { verdict: 'none', pipeline: 'none', runs: 1 },
          ]),
        );
        expect(sort(await m.stallRunsByFingerprintAndNode())).toEqual(
          sort([
            { fingerprint: 'fp1', phase: 'hift', node: 'n1', runs: 1 },
            { fingerprint: 'fp1', phase: 'hift', node: 'n2', runs: 1 },
          ]),
        );
        expect(sort(await m.runsByStatusAndSource())).toEqual(
          sort([
            { status: 'finished', source: 'cli', runs: 3 },
            { status: 'running', source: 'cli', runs: 1 },
          ]),
        );
        expect(await m.eventsNumbered()).toBe(7);
        expect(await m.retentionCounts()).toEqual({ pinned: 1, pruned: 1 });
      }),
    );
  });
}
