/**
 * Versioned schema migrations. `PRAGMA user_version` holds the number of
 * migrations applied; each runs once, in its own transaction, in order.
 * Append new migrations at the end; never edit a shipped one. A migration is
 * SQL, or a function when existing rows need values only code computes.
 */
import type Database from 'better-sqlite3';
import { backfillStallEvidence } from './stallBackfill.ts';
import { refingerprintedTimeout, reportFingerprintColumns } from '../common/refingerprint.ts';

export type Migration = string | ((db: Database.Database) => void);

export const MIGRATIONS: Migration[] = [
  // 1: runs, requests, events, stall reports, run metadata.
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,              -- 'dashboard' | 'cli' | 'import'
    status TEXT NOT NULL,              -- RunStatus
    verdict TEXT,
    label TEXT,
    model TEXT,
    target TEXT,                       -- base URL or 'embedded'
    dataset TEXT,
    num_prompts INTEGER,
    max_concurrency INTEGER,
    request_rate TEXT,
    fail_fast INTEGER NOT NULL DEFAULT 0,
    created_at_ms INTEGER NOT NULL,
    started_at_ms INTEGER,
    finished_at_ms INTEGER,
    last_seq INTEGER NOT NULL DEFAULT 0,
    spec_json TEXT,
    config_json TEXT,
    state_json TEXT,                   -- RunState at the last flushed batch
    summary_json TEXT,                 -- RunSummary once finished
    result_json TEXT,                  -- vLLM result object (engine's or imported)
    import_json TEXT,                  -- which parts an import had
    metadata_json TEXT NOT NULL DEFAULT '{}',
    error TEXT
  );
  CREATE INDEX runs_created ON runs(created_at_ms DESC);
  CREATE TABLE run_metadata (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
  ) WITHOUT ROWID;
  CREATE INDEX run_metadata_kv ON run_metadata(key, value);
  CREATE TABLE requests (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    row_json TEXT NOT NULL,            -- RequestRow
    status TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
  ) WITHOUT ROWID;
  CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    json TEXT NOT NULL,                -- RunEvent
    PRIMARY KEY (run_id, seq)
  ) WITHOUT ROWID;
  CREATE TABLE stall_reports (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    worker_id INTEGER NOT NULL,
    op_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    phase TEXT NOT NULL,
    report_json TEXT NOT NULL,         -- StallReport
    recovered_json TEXT,               -- {stalledS, ts} once recovered
    PRIMARY KEY (run_id, worker_id, op_id)
  ) WITHOUT ROWID;
  `,
  // 2: a result object in bounded parts (an imported 28 MB result was one ~0.1 s synchronous write; parts are
  // written one per turn of the event loop). result_parts says how many make it whole: set once the last is in,
  // so a dashboard killed mid-import leaves no half result. Older rows keep theirs in runs.result_json.
  `
  CREATE TABLE run_results (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    part INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (run_id, part)
  );
  ALTER TABLE runs ADD COLUMN result_parts INTEGER;
  `,
  // 3: the stall board (docs/design.md#stall-board). Every stall report's fingerprint beside it; a run's first
  // structural timeout (phase-only evidence) and the target's identity; runs ordered by when they happened (an
  // import by its file's date, which is its started_at_ms). Existing rows get theirs computed here.
  (db) => {
    db.exec(`
      ALTER TABLE stall_reports ADD COLUMN fingerprint TEXT;
      ALTER TABLE stall_reports ADD COLUMN fingerprint_json TEXT;
      CREATE INDEX stall_reports_fingerprint ON stall_reports(fingerprint);
      ALTER TABLE runs ADD COLUMN first_timeout_json TEXT;
      ALTER TABLE runs ADD COLUMN server_identity_json TEXT;
      CREATE INDEX runs_happened ON runs(COALESCE(started_at_ms, created_at_ms) DESC);
    `);
    backfillStallEvidence(db);
  },
  // 4: scoped API tokens (docs/design.md#tokens), stored as their SHA-256 only; a name is taken by one unrevoked
  // token at a time; a run created with a report token remembers it. SQL that SQLite and PostgreSQL both accept.
  `
  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    scope TEXT NOT NULL,               -- 'report' | 'view' | 'admin'
    token_hash TEXT NOT NULL UNIQUE,   -- SHA-256 of the token, hex
    prefix TEXT NOT NULL,              -- its first characters, to recognise it in a list
    created_at_ms BIGINT NOT NULL,
    last_used_at_ms BIGINT,
    revoked_at_ms BIGINT
  );
  CREATE UNIQUE INDEX api_tokens_active_name ON api_tokens(name) WHERE revoked_at_ms IS NULL;
  ALTER TABLE runs ADD COLUMN reported_by_token TEXT;  -- the report token that created the run, which alone feeds it
  `,
  // 5: retention (docs/design.md#retention): a pinned run is never pruned; pruned_at_ms says its request rows and
  // events were removed (its summary, result, verdict, metadata and stall evidence stay).
  `
  ALTER TABLE runs ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN pruned_at_ms BIGINT;
  `,
  // 6: requests that ended together (a stopped run's unsent tail) as one row per range, not one per
  // request: readers synthesise each request's row from the range's template (docs/design.md#bulk-unsent).
  `
  CREATE TABLE request_ranges (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    from_idx INTEGER NOT NULL,
    to_idx INTEGER NOT NULL,           -- exclusive
    status TEXT NOT NULL,
    id_prefix TEXT,                    -- request ids are id_prefix || idx; NULL: empty ids
    row_json TEXT NOT NULL,            -- RequestRow every request of the range shows, but its index and id
    PRIMARY KEY (run_id, from_idx)
  ) WITHOUT ROWID;
  `,
  // 7: events the database refused to store, counted per run, with its words for the last refusal
  // (docs/design.md#outage-buffer): a run whose evidence was dropped says so on its page.
  `
  ALTER TABLE runs ADD COLUMN dropped_events INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN dropped_error TEXT;
  `,
  // 8: fingerprints hashed from an unambiguous encoding
  // (docs/design.md#stall-fingerprints). Every stored one is recomputed, so old runs group with new ones.
  (db) => {
    const reports = db.prepare('SELECT run_id, worker_id, op_id, report_json FROM stall_reports').all() as {
      run_id: string;
      worker_id: number;
      op_id: number;
      report_json: string;
    }[];
    const setReport = db.prepare(
      'UPDATE stall_reports SET fingerprint = ?, fingerprint_json = ? WHERE run_id = ? AND worker_id = ? AND op_id = ?',
    );
    for (const r of reports) {
      const fp = reportFingerprintColumns(r.report_json);
      setReport.run(fp.fingerprint, fp.json, r.run_id, r.worker_id, r.op_id);
    }
    const runs = db.prepare('SELECT id, first_timeout_json FROM runs WHERE first_timeout_json IS NOT NULL').all() as {
      id: string;
      first_timeout_json: string;
    }[];
    const setRun = db.prepare('UPDATE runs SET first_timeout_json = ? WHERE id = ?');
    for (const r of runs) setRun.run(refingerprintedTimeout(r.first_timeout_json), r.id);
  },
];

/** Applies the pending migrations; returns the schema version reached. */
export function migrate(db: Database.Database): number {
  let version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new Error(`database schema version ${version} is newer than this stallscope (${MIGRATIONS.length})`);
  }
  for (; version < MIGRATIONS.length; version++) {
    const m = MIGRATIONS[version];
    db.transaction(() => {
      if (typeof m === 'string') db.exec(m);
      else m(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return version;
}
