/**
 * A database written before fingerprints were hashed from today's encoding (docs/design.md#stall-fingerprints):
 * on both stores, opening it recomputes every stored fingerprint (stall reports and first timeouts), so an old
 * run of a stall and a new run of the same stall are one group on the board.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { DB_FILE } from '#server/dashboard/store/sqlite/db.ts';
import { MIGRATIONS } from '#server/dashboard/store/sqlite/migrations.ts';
import { migratePg, PG_MIGRATIONS } from '#server/dashboard/store/pg/pgMigrations.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { seedRun } from '#test/helpers/fleetStore.ts';
import { hangRunEvents, stallReport } from '#test/helpers/sampleEvents.ts';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';
import { firstTimeout } from '#shared/stalls/stallEvidence.ts';

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

/** Fingerprints as an older encoding left them: not what today's computes from the same report. */
const OLD = 'aaaaaaaaaaaa';
const OLD_TIMEOUT = 'bbbbbbbbbbbb';
const REPORT = { ...stallReport('old', 5), requestIds: ['old-2', 'old-3'] };
const AT = 1_700_000_000_000;

/** The rows of a run stored with the old fingerprints, as SQL both databases take ($n placeholders). */
function oldRows(): { sql: string; params: unknown[] }[] {
  const fp = { ...stallFingerprint(REPORT.phase, REPORT.stack), fingerprint: OLD };
  const timeout = firstTimeout(2, 'old-2', 'total', 4011, 'hift');
  timeout.fingerprint.fingerprint = OLD_TIMEOUT;
  return [
    {
      sql: `INSERT INTO runs (id, source, status, verdict, created_at_ms, started_at_ms, first_timeout_json)
            VALUES ('old', 'cli', 'finished', 'failed_closed', $1, $1, $2)`,
      params: [AT, JSON.stringify(timeout)],
    },
    {
      sql: `INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, fingerprint, fingerprint_json)
            VALUES ('old', 0, 5, 3, 'hift', $1, $2, $3)`,
      params: [JSON.stringify(REPORT), OLD, JSON.stringify(fp)],
    },
  ];
}

const stores = [
  {
    name: 'SQLite',
    /** A data folder whose database stopped before the fingerprints' migration (8), holding the old run. */
    old: async (dir: string) => {
      const db = new Database(join(dir, DB_FILE));
      MIGRATIONS.slice(0, 7).forEach((m, i) => {
        if (typeof m === 'string') db.exec(m);
        else m(db);
        db.pragma(`user_version = ${i + 1}`);
      });
      for (const r of oldRows()) db.prepare(r.sql.replace(/\$\d/g, '?')).run(...paramsFor(r));
      db.close();
      return { dataDir: dir };
    },
  },
  {
    name: 'PostgreSQL',
    old: async (_dir: string) => {
      const url = await cluster!.freshDatabase();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      // Stopped before the fingerprints' migration (6).
      await migratePg(c, PG_MIGRATIONS.slice(0, 5));
      for (const r of oldRows()) await c.query(r.sql, r.params);
      await c.end();
      return { dataDir: null, database: url };
    },
  },
];

/** SQLite's `?` placeholders are positional: `$1` used twice is passed twice. */
function paramsFor(r: { sql: string; params: unknown[] }): unknown[] {
  return [...r.sql.matchAll(/\$(\d)/g)].map((m) => r.params[Number(m[1]) - 1]);
}

describe.each(stores)('$name: fingerprints recomputed on migration', ({ old }) => {
  it('an old run and a new run of the same stall are one group on the board', async ({ newApp, tempDir }) => {
    const app = await newApp(await old(tempDir));
    await seedRun(app, 'new', AT + 60_000, { events: hangRunEvents('new', AT + 60_000) });
    const board = (await app.inject({ url: '/api/stalls' })).json();
    const today = stallFingerprint(REPORT.phase, REPORT.stack).fingerprint;
    const byFingerprint = new Map<string, { runs: string[] }>(
      board.groups.map((g: { fingerprint: string; runs: string[] }) => [g.fingerprint, g]),
    );
    expect(byFingerprint.get(today)?.runs.sort()).toEqual(['new', 'old']);
    expect(byFingerprint.has(OLD)).toBe(false);
    expect(byFingerprint.has(OLD_TIMEOUT)).toBe(false);
    // The old run's own page shows the recomputed ones.
    const detail = (await app.inject({ url: '/api/runs/old' })).json();
    expect(detail.stallReports[0].fingerprint.fingerprint).toBe(today);
    expect(detail.firstTimeout.fingerprint.fingerprint).toBe(stallFingerprint('hift', []).fingerprint);
  });
});
