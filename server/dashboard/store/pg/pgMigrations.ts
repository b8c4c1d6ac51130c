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
  // 7: a year of history answers fast (docs/design.md#year-of-history): the runs list's text search from a
  // trigram index (pg_trgm, in Debian's postgresql-15 and trusted: a database owner may create it) of what it
  // searches, the expression pg/pgRunList.ts's RUN_TEXT writes. A database where the extension cannot be created
  // still migrates: its searches scan, with the same answers.
  async (c) => {
    await c.query('SAVEPOINT trgm');
    try {
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await c.query(
        `CREATE INDEX runs_text_trgm ON runs USING gin ((id || E'\\n' || COALESCE(label, '') || E'\\n' ||
          COALESCE(model, '') || E'\\n' || COALESCE(target, '') || E'\\n' || metadata_json) gin_trgm_ops)`,
      );
    } catch (e) {
      await c.query('ROLLBACK TO SAVEPOINT trgm');
      process.stderr.write(`stallscope: no trigram index (${(e as Error).message}): run searches scan the runs\n`);
    }
  },
  // 8: the stall board's facts, ready for grouping in SQL, as SQLite's migration 10 (docs/design.md#stall-board):
  // a row per run and fingerprint of its evidence, with when the run happened and its job, kept by triggers on
  // every path that writes evidence, backfilled here.
  `
  CREATE TABLE stall_facts (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    phase TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    pipeline TEXT NOT NULL DEFAULT '',
    step TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, kind, fingerprint)
  );
  CREATE INDEX stall_facts_job ON stall_facts(pipeline, step, fingerprint, at_ms);
  CREATE INDEX stall_facts_fingerprint ON stall_facts(fingerprint, at_ms);
  CREATE INDEX stall_facts_time ON stall_facts(at_ms);
  CREATE FUNCTION stallscope_stall_fact(p_run TEXT, p_kind TEXT, p_fingerprint TEXT, p_phase TEXT) RETURNS void
  LANGUAGE sql AS $$
    INSERT INTO stall_facts (run_id, kind, fingerprint, phase, at_ms, pipeline, step)
    SELECT r.id, p_kind, p_fingerprint, p_phase, COALESCE(r.started_at_ms, r.created_at_ms),
      COALESCE((SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_pipeline'), ''),
      COALESCE((SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_step'), '')
    FROM runs r WHERE r.id = p_run AND p_fingerprint IS NOT NULL
    ON CONFLICT DO NOTHING
  $$;
  CREATE FUNCTION stallscope_report_fact() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT (NEW.worker_id = -1 AND (NEW.report_json::jsonb ->> 'stackError') IS NOT NULL) THEN
      PERFORM stallscope_stall_fact(NEW.run_id, 'stack', NEW.fingerprint, NEW.phase);
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER stall_facts_report AFTER INSERT ON stall_reports
    FOR EACH ROW WHEN (NEW.fingerprint IS NOT NULL) EXECUTE FUNCTION stallscope_report_fact();
  CREATE FUNCTION stallscope_run_facts() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.first_timeout_json IS NOT NULL THEN
      PERFORM stallscope_stall_fact(NEW.id, 'timeout', NEW.first_timeout_json::jsonb #>> '{fingerprint,fingerprint}',
        NEW.first_timeout_json::jsonb #>> '{fingerprint,phase}');
    END IF;
    IF TG_OP = 'UPDATE' THEN
      UPDATE stall_facts SET at_ms = COALESCE(NEW.started_at_ms, NEW.created_at_ms)
      WHERE run_id = NEW.id AND at_ms IS DISTINCT FROM COALESCE(NEW.started_at_ms, NEW.created_at_ms);
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER stall_facts_run AFTER INSERT OR UPDATE OF first_timeout_json, started_at_ms, created_at_ms ON runs
    FOR EACH ROW EXECUTE FUNCTION stallscope_run_facts();
  CREATE FUNCTION stallscope_job_facts() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE stall_facts SET pipeline = CASE NEW.key WHEN 'ci_pipeline' THEN NEW.value ELSE pipeline END,
      step = CASE NEW.key WHEN 'ci_step' THEN NEW.value ELSE step END WHERE run_id = NEW.run_id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER stall_facts_job AFTER INSERT ON run_metadata
    FOR EACH ROW WHEN (NEW.key IN ('ci_pipeline', 'ci_step')) EXECUTE FUNCTION stallscope_job_facts();
  SELECT stallscope_stall_fact(s.run_id, 'stack', s.fingerprint, s.phase) FROM stall_reports s
    WHERE NOT (s.worker_id = -1 AND (s.report_json::jsonb ->> 'stackError') IS NOT NULL);
  SELECT stallscope_stall_fact(r.id, 'timeout', r.first_timeout_json::jsonb #>> '{fingerprint,fingerprint}',
      r.first_timeout_json::jsonb #>> '{fingerprint,phase}')
    FROM runs r WHERE r.first_timeout_json IS NOT NULL;
  `,
  // 9: retention through a year of runs, as SQLite's migration 11 (docs/design.md#retention).
  `
  CREATE INDEX runs_due ON runs ((COALESCE(started_at_ms, created_at_ms)), id) WHERE pinned = 0 AND pruned_at_ms IS NULL;
  CREATE INDEX runs_newest ON runs ((COALESCE(started_at_ms, created_at_ms)) DESC, id);
  `,
  // 10: what /metrics counts, one narrow row per run, as SQLite's migration 12 (docs/design.md#metrics): kept by
  // triggers wherever it is written, so a scrape groups small rows instead of joining every run to its metadata and
  // its stall reports' JSON (0.5 s at a year of history).
  `
  CREATE TABLE run_labels (
    run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    source TEXT NOT NULL,
    verdict TEXT,
    pipeline TEXT,
    step TEXT,
    node TEXT,
    stalled INTEGER NOT NULL,
    pinned INTEGER NOT NULL,
    pruned INTEGER NOT NULL,
    last_seq BIGINT NOT NULL
  );
  CREATE INDEX run_labels_job ON run_labels(pipeline, step, verdict, stalled);
  CREATE INDEX run_labels_status ON run_labels(status, source, verdict, pinned, pruned, last_seq);
  CREATE FUNCTION stallscope_run_labels(p_run TEXT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO run_labels (run_id, status, source, verdict, pipeline, step, node, stalled, pinned, pruned, last_seq)
    SELECT r.id, r.status, r.source, r.verdict,
      (SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_pipeline'),
      (SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_step'),
      (SELECT value FROM run_metadata WHERE run_id = r.id AND key = 'ci_node'),
      CASE WHEN EXISTS (SELECT 1 FROM stall_facts f WHERE f.run_id = r.id) THEN 1 ELSE 0 END,
      r.pinned, CASE WHEN r.pruned_at_ms IS NULL THEN 0 ELSE 1 END, r.last_seq
    FROM runs r WHERE r.id = p_run
    ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, source = excluded.source, verdict = excluded.verdict,
      pipeline = excluded.pipeline, step = excluded.step, node = excluded.node, stalled = excluded.stalled,
      pinned = excluded.pinned, pruned = excluded.pruned, last_seq = excluded.last_seq
  $$;
  CREATE FUNCTION stallscope_runs_labels() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM stallscope_run_labels(NEW.id);
    ELSE
      UPDATE run_labels SET status = NEW.status, source = NEW.source, verdict = NEW.verdict, pinned = NEW.pinned,
        pruned = CASE WHEN NEW.pruned_at_ms IS NULL THEN 0 ELSE 1 END, last_seq = NEW.last_seq WHERE run_id = NEW.id;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER run_labels_run AFTER INSERT OR UPDATE OF status, source, verdict, pinned, pruned_at_ms, last_seq
    ON runs FOR EACH ROW EXECUTE FUNCTION stallscope_runs_labels();
  CREATE FUNCTION stallscope_meta_label() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE run_labels SET pipeline = CASE NEW.key WHEN 'ci_pipeline' THEN NEW.value ELSE pipeline END,
      step = CASE NEW.key WHEN 'ci_step' THEN NEW.value ELSE step END,
      node = CASE NEW.key WHEN 'ci_node' THEN NEW.value ELSE node END
    WHERE run_id = NEW.run_id;
    RETURN NULL;
  END $$;
  CREATE FUNCTION stallscope_meta_labels() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    id TEXT;
  BEGIN
    FOREACH id IN ARRAY CASE TG_OP WHEN 'DELETE' THEN ARRAY[OLD.run_id] ELSE ARRAY[OLD.run_id, NEW.run_id] END LOOP
      UPDATE run_labels SET
        pipeline = (SELECT value FROM run_metadata WHERE run_id = id AND key = 'ci_pipeline'),
        step = (SELECT value FROM run_metadata WHERE run_id = id AND key = 'ci_step'),
        node = (SELECT value FROM run_metadata WHERE run_id = id AND key = 'ci_node')
      WHERE run_id = id;
    END LOOP;
    RETURN NULL;
  END $$;
  -- Only the keys it labels by fire it: a reporter's other metadata (builds, commits, URLs) costs nothing more.
  CREATE TRIGGER run_labels_meta_insert AFTER INSERT ON run_metadata
    FOR EACH ROW WHEN (NEW.key IN ('ci_pipeline', 'ci_step', 'ci_node')) EXECUTE FUNCTION stallscope_meta_label();
  CREATE TRIGGER run_labels_meta_update AFTER UPDATE ON run_metadata
    FOR EACH ROW WHEN (OLD.key IN ('ci_pipeline', 'ci_step', 'ci_node') OR NEW.key IN ('ci_pipeline', 'ci_step', 'ci_node'))
    EXECUTE FUNCTION stallscope_meta_labels();
  CREATE TRIGGER run_labels_meta_delete AFTER DELETE ON run_metadata
    FOR EACH ROW WHEN (OLD.key IN ('ci_pipeline', 'ci_step', 'ci_node')) EXECUTE FUNCTION stallscope_meta_labels();
  CREATE FUNCTION stallscope_fact_labels() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      UPDATE run_labels SET stalled = 1 WHERE run_id = NEW.run_id AND stalled = 0;
    ELSE
      UPDATE run_labels SET stalled = CASE WHEN EXISTS (SELECT 1 FROM stall_facts WHERE run_id = OLD.run_id) THEN 1 ELSE 0 END
        WHERE run_id = OLD.run_id;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER run_labels_fact AFTER INSERT OR DELETE ON stall_facts
    FOR EACH ROW EXECUTE FUNCTION stallscope_fact_labels();
  SELECT stallscope_run_labels(id) FROM runs;
  `,
  // 11: the stall board's version, as SQLite's migration 14 (docs/design.md#board-cache). Bumped once per
  // transaction that writes what the board reads, at its commit (deferred constraint triggers): the counter's row
  // lock is the last one a writer takes, so two writers never wait on each other through it (taken first, a writer
  // holding it could wait on a run row that another writer, already locked on that row, needs the counter for).
  `
  CREATE TABLE board_version (id INTEGER PRIMARY KEY CHECK (id = 1), v BIGINT NOT NULL);
  INSERT INTO board_version (id, v) VALUES (1, 0);
  -- Once per transaction (a setting local to it says it is done): an import's thousands of rows bump it once.
  CREATE FUNCTION stallscope_board_bump() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('stallscope.board_bumped', true) IS DISTINCT FROM 'yes' THEN
      UPDATE board_version SET v = v + 1 WHERE id = 1;
      PERFORM set_config('stallscope.board_bumped', 'yes', true);
    END IF;
    RETURN NULL;
  END $$;
  CREATE CONSTRAINT TRIGGER board_version_run_change AFTER INSERT OR DELETE ON runs
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stallscope_board_bump();
  CREATE CONSTRAINT TRIGGER board_version_run_update
    AFTER UPDATE OF started_at_ms, created_at_ms, verdict, status, label, first_timeout_json ON runs
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.started_at_ms IS DISTINCT FROM NEW.started_at_ms OR OLD.created_at_ms IS DISTINCT FROM NEW.created_at_ms
      OR OLD.verdict IS DISTINCT FROM NEW.verdict OR OLD.status IS DISTINCT FROM NEW.status
      OR OLD.label IS DISTINCT FROM NEW.label OR OLD.first_timeout_json IS DISTINCT FROM NEW.first_timeout_json)
    EXECUTE FUNCTION stallscope_board_bump();
  CREATE CONSTRAINT TRIGGER board_version_metadata AFTER INSERT OR UPDATE OR DELETE ON run_metadata
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stallscope_board_bump();
  CREATE CONSTRAINT TRIGGER board_version_report_change AFTER INSERT OR DELETE ON stall_reports
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stallscope_board_bump();
  CREATE CONSTRAINT TRIGGER board_version_report_update AFTER UPDATE OF fingerprint, fingerprint_json ON stall_reports
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.fingerprint IS DISTINCT FROM NEW.fingerprint OR OLD.fingerprint_json IS DISTINCT FROM NEW.fingerprint_json)
    EXECUTE FUNCTION stallscope_board_bump();
  CREATE CONSTRAINT TRIGGER board_version_facts AFTER INSERT OR UPDATE OR DELETE ON stall_facts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stallscope_board_bump();
  `,
  // 12: the stall board's reads answered from indexes alone (docs/performance.md#year-of-history). Its window (the
  // newest runs) reads the runs' time, id and verdict from `runs_newest`: 5,000 runs' rows, each on its own page,
  // cost 30-60 ms a board. A metadata filter's runs (one pipeline's) come from `run_metadata_kv` without a row each
  // (~15 ms for 500 runs, twice a board). Its runs' reports by key, in order, from `stall_reports_board` (as
  // SQLite's 13), never the rows with their whole reports (a sequential scan of them: ~40 ms a board at a year).
  `
  DROP INDEX run_metadata_kv;
  CREATE INDEX run_metadata_kv ON run_metadata (key, value) INCLUDE (run_id);
  DROP INDEX runs_newest;
  CREATE INDEX runs_newest ON runs ((COALESCE(started_at_ms, created_at_ms)) DESC, id)
    INCLUDE (started_at_ms, created_at_ms, verdict);
  CREATE INDEX stall_reports_board ON stall_reports (run_id, seq) INCLUDE (worker_id, op_id, fingerprint);
  `,
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
