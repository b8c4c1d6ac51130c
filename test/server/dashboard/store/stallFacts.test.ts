/**
 * The stall board's facts (docs/design.md#stall-board), on both stores: a row per run and fingerprint
 * of its evidence with its job and when it happened, ready for the board to group in SQL.
 * - Written as evidence is ingested: a run reported through the hub (a watchdog report, then its first timeout)
 *   has its two facts, with its ci_pipeline and ci_step; deleting the run deletes them.
 * - The same facts as the evidence the board reads today (BoardReads.runs, fingerprinted in JavaScript) on a
 *   seeded generated history loaded through `db import`'s calls.
 * - Backfilled by the migration: a database migrated to the version before, holding evidence, gets its facts.
 * - Read by the board's future query from its indexes, never by scanning the facts (EXPLAIN).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#server/dashboard/app.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import { MIGRATIONS, migrate } from '#server/dashboard/store/sqlite/migrations.ts';
import { PG_MIGRATIONS, migratePg } from '#server/dashboard/store/pg/pgMigrations.ts';
import { seedRun } from '#test/helpers/fleetStore.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { loadHistory } from '#test/perf/boardHistory.ts';

interface Fact {
  run_id: string;
  kind: string;
  fingerprint: string;
  phase: string;
  at_ms: number;
  pipeline: string;
  step: string;
}

const facts = async (store: DashboardStore, runId?: string): Promise<Fact[]> => {
  let q = store.kysely.selectFrom('stall_facts').selectAll();
  if (runId) q = q.where('run_id', '=', runId);
  const rows = await q.orderBy('run_id').orderBy('kind').orderBy('fingerprint').execute();
  return rows.map((r) => ({ ...r, at_ms: Number(r.at_ms) }));
};

/** The facts the board's evidence (fingerprinted in JavaScript from the stored reports and timeouts) implies. */
async function boardFacts(store: DashboardStore): Promise<Fact[]> {
  const { runs } = await store.board.runs({ maxRuns: 1_000_000 });
  const out = new Map<string, Fact>();
  for (const r of runs)
    for (const e of r.evidence) {
      const kind = e.kind === 'timeout' ? 'timeout' : 'stack';
      const f = {
        run_id: r.id,
        kind,
        fingerprint: e.fingerprint,
        phase: e.phase,
        at_ms: r.atMs,
        pipeline: r.metadata.ci_pipeline ?? '',
        step: r.metadata.ci_step ?? '',
      };
      out.set(`${r.id}\n${kind}\n${e.fingerprint}`, f);
    }
  return [...out.values()].sort((a, b) =>
    a.run_id < b.run_id
      ? -1
      : a.run_id > b.run_id
        ? 1
        : a.kind.localeCompare(b.kind) || (a.fingerprint < b.fingerprint ? -1 : 1),
  );
}

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

for (const kind of ['SQLite', 'PostgreSQL'] as const) {
  describe(`stall facts on ${kind}`, () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      const database = kind === 'PostgreSQL' ? await cluster!.freshDatabase() : null;
      app = await buildApp({ dataDir: null, database, logger: false, store: { flushIntervalMs: 10 } });
      await app.ready();
    }, 60_000);
    afterAll(() => app?.close());

    it('are written as evidence is ingested, with the job, and go with their run', async () => {
      const at = 1_700_000_000_000;
      const metadata = { ci_pipeline: 'omni/nightly', ci_step: 'accuracy', ci_node: 'n1' };
      await seedRun(app, 'live-1', at, { metadata, events: hangRunEvents('live-1', at) });
      const got = await facts(app.store, 'live-1');
      expect(got.map((f) => [f.kind, f.phase, f.pipeline, f.step, f.at_ms])).toEqual([
        ['stack', 'hift', 'omni/nightly', 'accuracy', at],
        ['timeout', 'hift', 'omni/nightly', 'accuracy', at],
      ]);
      const stored = await app.store.runReads.stallReports('live-1');
      expect(got[0].fingerprint).toBe(stored[0].fingerprint!.fingerprint);
      expect(got[1].fingerprint).toBe((await app.store.runReads.get('live-1'))!.firstTimeout!.fingerprint.fingerprint);
      await app.store.runWrites.delete('live-1');
      expect(await facts(app.store, 'live-1')).toEqual([]);
    });

    it('are the evidence the board reads, run by run, on a generated history', async () => {
      await loadHistory(app.store, { seed: 3, runs: 300, pipelines: 5, nodes: 4, fingerprints: 6 });
      const want = await boardFacts(app.store);
      expect(want.length).toBeGreaterThan(40);
      expect(await facts(app.store)).toEqual(want);
    });

    it('are read by job, fingerprint and time from their indexes', async () => {
      const plan = await sql<Record<string, string>>`${sql.raw(kind === 'SQLite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN')}
        SELECT fingerprint, COUNT(DISTINCT run_id) AS n FROM stall_facts
        WHERE pipeline = 'vllm-omni/nightly-1' AND step = 'accuracy' AND at_ms >= 0
        GROUP BY fingerprint`.execute(app.store.kysely);
      const text = plan.rows.map((r) => Object.values(r).join(' ')).join('\n');
      expect(text).toMatch(/stall_facts_job/);
      expect(text).not.toMatch(/Seq Scan on stall_facts|SCAN stall_facts(?! USING)/);
    });
  });
}

describe('stall facts backfilled by the migration', () => {
  it('on SQLite: reports and first timeouts stored before it get their facts', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    const before = MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('CREATE TABLE stall_facts'));
    for (const m of MIGRATIONS.slice(0, before)) {
      if (typeof m === 'string') db.exec(m);
      else m(db);
    }
    db.pragma(`user_version = ${before}`);
    db.prepare(
      `INSERT INTO runs (id, source, status, created_at_ms, started_at_ms, first_timeout_json) VALUES ('old', 'cli', 'finished', 5, 7, ?)`,
    ).run(
      JSON.stringify({
        index: 0,
        requestId: 'x',
        kind: 'total',
        t: 1,
        phase: 'flow',
        fingerprint: { fingerprint: 'fp-t', phase: 'flow', frames: [], label: 'flow' },
      }),
    );
    db.prepare(`INSERT INTO run_metadata VALUES ('old', 'ci_pipeline', 'p'), ('old', 'ci_step', 's')`).run();
    db.prepare(
      `INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, fingerprint) VALUES ('old', 0, 1, 2, 'hift', '{}', 'fp-s'), ('old', -1, 2, 3, 'hift', '{"stackError":"no py-spy"}', 'fp-x')`,
    ).run();
    migrate(db);
    expect(
      db.prepare('SELECT kind, fingerprint, phase, at_ms, pipeline, step FROM stall_facts ORDER BY kind').all(),
    ).toEqual([
      { kind: 'stack', fingerprint: 'fp-s', phase: 'hift', at_ms: 7, pipeline: 'p', step: 's' },
      { kind: 'timeout', fingerprint: 'fp-t', phase: 'flow', at_ms: 7, pipeline: 'p', step: 's' },
    ]);
    db.close();
  });

  it('on PostgreSQL: the same', async () => {
    const c = new pg.Client({ connectionString: await cluster!.freshDatabase() });
    await c.connect();
    try {
      const before = PG_MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('CREATE TABLE stall_facts'));
      await migratePg(c, PG_MIGRATIONS.slice(0, before));
      await c.query(
        `INSERT INTO runs (id, source, status, created_at_ms, started_at_ms, first_timeout_json) VALUES ('old', 'cli', 'finished', 5, 7, $1)`,
        [
          JSON.stringify({
            index: 0,
            requestId: 'x',
            kind: 'total',
            t: 1,
            phase: 'flow',
            fingerprint: { fingerprint: 'fp-t', phase: 'flow', frames: [], label: 'flow' },
          }),
        ],
      );
      await c.query(`INSERT INTO run_metadata VALUES ('old', 'ci_pipeline', 'p'), ('old', 'ci_step', 's')`);
      await c.query(
        `INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, fingerprint) VALUES ('old', 0, 1, 2, 'hift', '{}', 'fp-s'), ('old', -1, 2, 3, 'hift', '{"stackError":"no py-spy"}', 'fp-x')`,
      );
      await migratePg(c);
      const rows = await c.query(
        'SELECT kind, fingerprint, phase, at_ms::int AS at_ms, pipeline, step FROM stall_facts ORDER BY kind',
      );
      expect(rows.rows).toEqual([
        { kind: 'stack', fingerprint: 'fp-s', phase: 'hift', at_ms: 7, pipeline: 'p', step: 's' },
        { kind: 'timeout', fingerprint: 'fp-t', phase: 'flow', at_ms: 7, pipeline: 'p', step: 's' },
      ]);
    } finally {
      await c.end();
    }
  });
});
