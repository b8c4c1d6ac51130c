/**
 * PostgreSQL's versioned schema migrations (docs/design.md#team-dashboard).
 * `stallscope_schema.version` holds how many were applied; each runs once,
 * in its own transaction, in order, under an advisory lock so dashboards
 * starting together migrate one after another. Append new migrations at the
 * end; never edit a shipped one. Migration 1 is the schema the SQLite
 * migrations 1-3 reach, plus what only a shared database needs: each run's
 * insertion order (SQLite's rowid) and the dashboard process that owns it.
 */
import type pg from 'pg';
import { refingerprintedTimeout, reportFingerprintColumns } from '../common/refingerprint.ts';

export type PgMigration = string | ((c: pg.ClientBase) => Promise<void>);

export const PG_MIGRATIONS: PgMigration[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    ord BIGSERIAL NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    verdict TEXT,
    label TEXT,
    model TEXT,
    target TEXT,
    dataset TEXT,
    num_prompts INTEGER,
    max_concurrency INTEGER,
    request_rate TEXT,
    fail_fast INTEGER NOT NULL DEFAULT 0,
    created_at_ms BIGINT NOT NULL,
    started_at_ms BIGINT,
    finished_at_ms BIGINT,
    last_seq BIGINT NOT NULL DEFAULT 0,
    spec_json TEXT,
    config_json TEXT,
    state_json TEXT,
    summary_json TEXT,
    result_json TEXT,
    import_json TEXT,
    metadata_json TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    result_parts INTEGER,
    first_timeout_json TEXT,
    server_identity_json TEXT,
    owner INTEGER
  );
  CREATE INDEX runs_happened ON runs ((COALESCE(started_at_ms, created_at_ms)) DESC, ord);
  CREATE INDEX runs_running ON runs (status) WHERE status = 'running';
  CREATE TABLE run_metadata (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
  );
  CREATE INDEX run_metadata_kv ON run_metadata(key, value);
  CREATE TABLE requests (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    row_json TEXT NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
  );
  CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  );
  CREATE TABLE stall_reports (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    worker_id INTEGER NOT NULL,
    op_id INTEGER NOT NULL,
    seq BIGINT NOT NULL,
    phase TEXT NOT NULL,
    report_json TEXT NOT NULL,
    recovered_json TEXT,
    fingerprint TEXT,
    fingerprint_json TEXT,
    PRIMARY KEY (run_id, worker_id, op_id)
  );
  CREATE INDEX stall_reports_fingerprint ON stall_reports(fingerprint);
  CREATE TABLE run_results (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    part INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (run_id, part)
  );
  `,
  // 2: scoped API tokens (docs/design.md#tokens), as SQLite's migration 4.
  `
  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    scope TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    last_used_at_ms BIGINT,
    revoked_at_ms BIGINT
  );
  CREATE UNIQUE INDEX api_tokens_active_name ON api_tokens(name) WHERE revoked_at_ms IS NULL;
  ALTER TABLE runs ADD COLUMN reported_by_token TEXT;
  `,
  // 3: retention (docs/design.md#retention), as SQLite's migration 5.
  `
  ALTER TABLE runs ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN pruned_at_ms BIGINT;
  `,
  // 4: requests that ended together, one row per range (docs/design.md#bulk-unsent), as SQLite's migration 6.
  `
  CREATE TABLE request_ranges (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    from_idx INTEGER NOT NULL,
    to_idx INTEGER NOT NULL,
    status TEXT NOT NULL,
    id_prefix TEXT,
    row_json TEXT NOT NULL,
    PRIMARY KEY (run_id, from_idx)
  );
  `,
  // 5: exactly once across a lost COMMIT answer (each writer batch's id and numbering, kept a day: pgBatchSql.ts),
  // and the events the database refused, counted per run (docs/design.md#outage-buffer), as SQLite's migration 7.
  `
  CREATE TABLE ingest_batches (
    id TEXT PRIMARY KEY,
    numbering TEXT NOT NULL,
    at_ms BIGINT NOT NULL
  );
  CREATE INDEX ingest_batches_at ON ingest_batches(at_ms);
  ALTER TABLE runs ADD COLUMN dropped_events INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN dropped_error TEXT;
  `,
  // 6: fingerprints hashed from an unambiguous encoding,
  // as SQLite's migration 8 (docs/design.md#stall-fingerprints). Every stored one is recomputed.
  async (c) => {
    const reports = await c.query<{ run_id: string; worker_id: number; op_id: number; report_json: string }>(
      'SELECT run_id, worker_id, op_id, report_json FROM stall_reports',
    );
    for (const r of reports.rows) {
      const fp = reportFingerprintColumns(r.report_json);
      await c.query(
        'UPDATE stall_reports SET fingerprint = $1, fingerprint_json = $2 WHERE run_id = $3 AND worker_id = $4 AND op_id = $5',
        [fp.fingerprint, fp.json, r.run_id, r.worker_id, r.op_id],
      );
    }
    const runs = await c.query<{ id: string; first_timeout_json: string }>(
      'SELECT id, first_timeout_json FROM runs WHERE first_timeout_json IS NOT NULL',
    );
    for (const r of runs.rows)
      await c.query('UPDATE runs SET first_timeout_json = $1 WHERE id = $2', [
        refingerprintedTimeout(r.first_timeout_json),
        r.id,
      ]);
  },
];

/** The advisory lock (two int4 keys) every migration runs under: 'stal' 'migr'. */
const LOCK = [0x7374616c, 0x6d696772];

/** Applies the pending migrations; returns the schema version reached. */
export async function migratePg(c: pg.ClientBase, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number> {
  // Under the lock too: two processes starting together on a new database would both create it (IF NOT EXISTS
  // is not atomic against a concurrent CREATE: "duplicate key value violates pg_type_typname_nsp_index").
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock($1, $2)', LOCK);
    await c.query('CREATE TABLE IF NOT EXISTS stallscope_schema (version INTEGER NOT NULL)');
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
  for (;;) {
    await c.query('BEGIN');
    try {
      await c.query('SELECT pg_advisory_xact_lock($1, $2)', LOCK);
      const r = await c.query<{ version: number }>('SELECT version FROM stallscope_schema');
      const version = r.rows[0]?.version ?? 0;
      if (version > migrations.length)
        throw new Error(`database schema version ${version} is newer than this stallscope (${migrations.length})`);
      if (version === migrations.length) {
        await c.query('COMMIT');
        return version;
      }
      const m = migrations[version];
      if (typeof m === 'string') await c.query(m);
      else await m(c);
      if (r.rows.length) await c.query('UPDATE stallscope_schema SET version = $1', [version + 1]);
      else await c.query('INSERT INTO stallscope_schema (version) VALUES ($1)', [version + 1]);
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }
}
