/**
 * Versioned schema migrations. `PRAGMA user_version` holds the number of
 * migrations applied; each runs once, in its own transaction, in order.
 * Append new migrations at the end; never edit a shipped one. A migration is
 * SQL, or a function when existing rows need values only code computes.
 */
import type Database from 'better-sqlite3';
import { backfillStallEvidence } from './stallBackfill.ts';
import { refingerprintedTimeout, reportFingerprintColumns } from '../common/refingerprint.ts';

/** What the runs list's text search looks in, one text a run (migration 9; sqlite/runListSql.ts). */
const RUN_TEXT = `id || char(10) || coalesce(label, '') || char(10) || coalesce(model, '') || char(10) ||
    coalesce(target, '') || char(10) || metadata_json`;
/** The same of the row a trigger sees. */
const NEW_RUN_TEXT = RUN_TEXT.replace(/\b(id|label|model|target|metadata_json)\b/g, 'new.$1');

/** A run's when and job, for a stall fact of run `id` (an expression) read with the run as `r` (migration 10). */
const FACT_RUN_COLUMNS = (id: string) => `COALESCE(r.started_at_ms, r.created_at_ms),
      COALESCE((SELECT value FROM run_metadata WHERE run_id = ${id} AND key = 'ci_pipeline'), ''),
      COALESCE((SELECT value FROM run_metadata WHERE run_id = ${id} AND key = 'ci_step'), '')`;
const TIMEOUT_FINGERPRINT = (r: string) => `json_extract(${r}.first_timeout_json, '$.fingerprint.fingerprint')`;
const TIMEOUT_PHASE = (r: string) => `json_extract(${r}.first_timeout_json, '$.fingerprint.phase')`;
/** One stall fact, from inside a trigger: its run's row read as `r`. */
const factInsert = (kind: string, fingerprint: string, phase: string, runId: string) =>
  `INSERT OR IGNORE INTO stall_facts (run_id, kind, fingerprint, phase, at_ms, pipeline, step)
      SELECT ${runId}, ${kind}, ${fingerprint}, ${phase}, ${FACT_RUN_COLUMNS(runId)} FROM runs r WHERE r.id = ${runId};`;

/** The metadata keys /metrics labels runs by (migration 12). */
const LABEL_KEYS = "'ci_pipeline', 'ci_step', 'ci_node'";
const meta = (id: string, key: string) => `(SELECT value FROM run_metadata WHERE run_id = ${id} AND key = '${key}')`;
/** A run's /metrics row, from its row read as `r` (migration 12). */
const runLabelsInsert = (from: string) =>
  `INSERT OR REPLACE INTO run_labels (run_id, status, source, verdict, pipeline, step, node, stalled, pinned, pruned, last_seq)
    SELECT r.id, r.status, r.source, r.verdict, ${meta('r.id', 'ci_pipeline')}, ${meta('r.id', 'ci_step')},
      ${meta('r.id', 'ci_node')}, EXISTS (SELECT 1 FROM stall_facts f WHERE f.run_id = r.id), r.pinned,
      r.pruned_at_ms IS NOT NULL, r.last_seq ${from};`;
/** A run's job and node read again from its metadata (migration 12). */
const labelFromMetadata = (id: string) =>
  `UPDATE run_labels SET pipeline = ${meta(id, 'ci_pipeline')}, step = ${meta(id, 'ci_step')},
      node = ${meta(id, 'ci_node')} WHERE run_id = ${id};`;

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
  // 9: a year of history answers fast (docs/design.md#year-of-history): the runs list's text search from
  // a trigram index of what it searches (id, label, model, target, metadata), kept by triggers — an FTS5 table
  // with the run's id beside the text (not its rowid, which a VACUUM may renumber).
  `
  CREATE VIRTUAL TABLE runs_text USING fts5(id UNINDEXED, text, tokenize = 'trigram');
  INSERT INTO runs_text (id, text)
    SELECT id, ${RUN_TEXT} FROM runs;
  CREATE TRIGGER runs_text_insert AFTER INSERT ON runs BEGIN
    INSERT INTO runs_text (id, text) VALUES (new.id, ${NEW_RUN_TEXT});
  END;
  CREATE TRIGGER runs_text_update AFTER UPDATE OF label, model, target, metadata_json ON runs BEGIN
    DELETE FROM runs_text WHERE id = old.id;
    INSERT INTO runs_text (id, text) VALUES (new.id, ${NEW_RUN_TEXT});
  END;
  CREATE TRIGGER runs_text_delete AFTER DELETE ON runs BEGIN
    DELETE FROM runs_text WHERE id = old.id;
  END;
  `,
  // 10: the stall board's facts, ready for grouping in SQL (docs/design.md#stall-board): one row per run
  // and fingerprint of its evidence — each stall report's (kind 'stack'; not a py-spy capture that read no stack)
  // and its first structural timeout's (kind 'timeout') — with when the run happened and its job (ci_pipeline,
  // ci_step), indexed by job, fingerprint and time. Kept by triggers on every path that writes evidence (the live
  // writer, db import, migrations) and backfilled here. A later change of fingerprint encoding rebuilds it.
  `
  CREATE TABLE stall_facts (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,                -- 'stack' | 'timeout'
    fingerprint TEXT NOT NULL,
    phase TEXT NOT NULL,
    at_ms INTEGER NOT NULL,            -- when the run happened: COALESCE(started_at_ms, created_at_ms)
    pipeline TEXT NOT NULL DEFAULT '', -- its ci_pipeline ('' when it has none)
    step TEXT NOT NULL DEFAULT '',     -- its ci_step
    PRIMARY KEY (run_id, kind, fingerprint)
  ) WITHOUT ROWID;
  CREATE INDEX stall_facts_job ON stall_facts(pipeline, step, fingerprint, at_ms);
  CREATE INDEX stall_facts_fingerprint ON stall_facts(fingerprint, at_ms);
  CREATE INDEX stall_facts_time ON stall_facts(at_ms);
  CREATE TRIGGER stall_facts_report AFTER INSERT ON stall_reports
    WHEN new.fingerprint IS NOT NULL AND NOT (new.worker_id = -1 AND json_extract(new.report_json, '$.stackError') IS NOT NULL)
  BEGIN
    ${factInsert("'stack'", 'new.fingerprint', 'new.phase', 'new.run_id')}
  END;
  CREATE TRIGGER stall_facts_timeout AFTER UPDATE OF first_timeout_json ON runs
    WHEN new.first_timeout_json IS NOT NULL
  BEGIN
    ${factInsert("'timeout'", TIMEOUT_FINGERPRINT('new'), TIMEOUT_PHASE('new'), 'new.id')}
  END;
  CREATE TRIGGER stall_facts_timeout_insert AFTER INSERT ON runs WHEN new.first_timeout_json IS NOT NULL BEGIN
    ${factInsert("'timeout'", TIMEOUT_FINGERPRINT('new'), TIMEOUT_PHASE('new'), 'new.id')}
  END;
  CREATE TRIGGER stall_facts_when AFTER UPDATE OF started_at_ms, created_at_ms ON runs BEGIN
    UPDATE stall_facts SET at_ms = COALESCE(new.started_at_ms, new.created_at_ms) WHERE run_id = new.id;
  END;
  CREATE TRIGGER stall_facts_job AFTER INSERT ON run_metadata WHEN new.key IN ('ci_pipeline', 'ci_step') BEGIN
    UPDATE stall_facts SET pipeline = CASE new.key WHEN 'ci_pipeline' THEN new.value ELSE pipeline END,
      step = CASE new.key WHEN 'ci_step' THEN new.value ELSE step END WHERE run_id = new.run_id;
  END;
  INSERT OR IGNORE INTO stall_facts (run_id, kind, fingerprint, phase, at_ms, pipeline, step)
    SELECT s.run_id, 'stack', s.fingerprint, s.phase, ${FACT_RUN_COLUMNS('s.run_id')}
    FROM stall_reports s JOIN runs r ON r.id = s.run_id
    WHERE s.fingerprint IS NOT NULL AND NOT (s.worker_id = -1 AND json_extract(s.report_json, '$.stackError') IS NOT NULL);
  INSERT OR IGNORE INTO stall_facts (run_id, kind, fingerprint, phase, at_ms, pipeline, step)
    SELECT r.id, 'timeout', ${TIMEOUT_FINGERPRINT('r')}, ${TIMEOUT_PHASE('r')}, ${FACT_RUN_COLUMNS('r.id')}
    FROM runs r WHERE r.first_timeout_json IS NOT NULL;
  `,
  // 11: retention through a year of runs (docs/design.md#retention): the runs it may still prune, oldest
  // first, in an index of their own (pinned and pruned runs are not in it), and the newest runs in a total order.
  `
  CREATE INDEX runs_due ON runs(COALESCE(started_at_ms, created_at_ms), id) WHERE pinned = 0 AND pruned_at_ms IS NULL;
  CREATE INDEX runs_newest ON runs(COALESCE(started_at_ms, created_at_ms) DESC, id);
  `,
  // 12: what /metrics counts, one narrow row per run (docs/design.md#metrics): the run's status, source, verdict,
  // job and node, whether it has stall evidence (a stall fact), pinned, pruned and its events numbered — kept by
  // triggers wherever those are written, so a scrape groups 20,000 small rows instead of reading every run's row,
  // its metadata and its stall reports' JSON (3.3 s at a year of history). Deleted with its run.
  `
  CREATE TABLE run_labels (
    run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    source TEXT NOT NULL,
    verdict TEXT,
    pipeline TEXT,                     -- its ci_pipeline; NULL when it has none
    step TEXT,                         -- its ci_step
    node TEXT,                         -- its ci_node
    stalled INTEGER NOT NULL,          -- 1: it has a stall fact (the board's stalled outcome)
    pinned INTEGER NOT NULL,
    pruned INTEGER NOT NULL,           -- 1: pruned_at_ms is set
    last_seq INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX run_labels_job ON run_labels(pipeline, step, verdict, stalled);
  CREATE INDEX run_labels_status ON run_labels(status, source, verdict, pinned, pruned, last_seq);
  ${runLabelsInsert('FROM runs r')}
  CREATE TRIGGER run_labels_insert AFTER INSERT ON runs BEGIN
    ${runLabelsInsert('FROM runs r WHERE r.id = new.id')}
  END;
  CREATE TRIGGER run_labels_update AFTER UPDATE OF status, source, verdict, pinned, pruned_at_ms, last_seq ON runs BEGIN
    UPDATE run_labels SET status = new.status, source = new.source, verdict = new.verdict, pinned = new.pinned,
      pruned = new.pruned_at_ms IS NOT NULL, last_seq = new.last_seq WHERE run_id = new.id;
  END;
  CREATE TRIGGER run_labels_meta_insert AFTER INSERT ON run_metadata WHEN new.key IN (${LABEL_KEYS}) BEGIN
    UPDATE run_labels SET pipeline = CASE new.key WHEN 'ci_pipeline' THEN new.value ELSE pipeline END,
      step = CASE new.key WHEN 'ci_step' THEN new.value ELSE step END,
      node = CASE new.key WHEN 'ci_node' THEN new.value ELSE node END WHERE run_id = new.run_id;
  END;
  CREATE TRIGGER run_labels_meta_update AFTER UPDATE ON run_metadata WHEN new.key IN (${LABEL_KEYS}) OR old.key IN (${LABEL_KEYS}) BEGIN
    ${labelFromMetadata('old.run_id')}
    ${labelFromMetadata('new.run_id')}
  END;
  CREATE TRIGGER run_labels_meta_delete AFTER DELETE ON run_metadata WHEN old.key IN (${LABEL_KEYS}) BEGIN
    ${labelFromMetadata('old.run_id')}
  END;
  CREATE TRIGGER run_labels_fact_insert AFTER INSERT ON stall_facts BEGIN
    UPDATE run_labels SET stalled = 1 WHERE run_id = new.run_id;
  END;
  CREATE TRIGGER run_labels_fact_delete AFTER DELETE ON stall_facts BEGIN
    UPDATE run_labels SET stalled = EXISTS (SELECT 1 FROM stall_facts WHERE run_id = old.run_id) WHERE run_id = old.run_id;
  END;
  `,
  // 13: the stall board reads its runs' reports by key (common/boardDetails.ts): their order, keys and fingerprints
  // from this index (a WITHOUT ROWID table's index holds its primary key), never the rows, each of which carries its
  // whole report (20-60 frames): 2,400 runs' reports read 0.4-0.9 s from the rows at load ~9.
  `CREATE INDEX stall_reports_board ON stall_reports(run_id, seq, fingerprint);`,
  // 14: the stall board's version (docs/design.md#board-cache): bumped by triggers in the same transaction as any
  // write the board reads — a run added, removed or changed where the board looks, its metadata, its stall reports'
  // fingerprints, its stall facts — and by nothing else (a batch of request events moves last_seq only). A
  // dashboard keeps the board it last served with the version read in the same snapshot, and serves it again while
  // the version is unchanged.
  `
  CREATE TABLE board_version (id INTEGER PRIMARY KEY CHECK (id = 1), v INTEGER NOT NULL);
  INSERT INTO board_version (id, v) VALUES (1, 0);
  ${boardVersionTriggers()}
  `,
];

/** Migration 14's triggers: every write the board reads bumps board_version. */
function boardVersionTriggers(): string {
  const bump = 'UPDATE board_version SET v = v + 1 WHERE id = 1;';
  const runColumns = ['started_at_ms', 'created_at_ms', 'verdict', 'status', 'label', 'first_timeout_json'];
  const changed = runColumns.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ');
  const out = [
    `CREATE TRIGGER board_version_run_insert AFTER INSERT ON runs BEGIN ${bump} END;`,
    `CREATE TRIGGER board_version_run_delete AFTER DELETE ON runs BEGIN ${bump} END;`,
    `CREATE TRIGGER board_version_run_update AFTER UPDATE OF ${runColumns.join(', ')} ON runs WHEN ${changed}
      BEGIN ${bump} END;`,
    `CREATE TRIGGER board_version_report_update AFTER UPDATE OF fingerprint, fingerprint_json ON stall_reports
      WHEN old.fingerprint IS NOT new.fingerprint OR old.fingerprint_json IS NOT new.fingerprint_json BEGIN ${bump} END;`,
  ];
  for (const t of ['run_metadata', 'stall_reports', 'stall_facts']) {
    out.push(`CREATE TRIGGER board_version_${t}_insert AFTER INSERT ON ${t} BEGIN ${bump} END;`);
    out.push(`CREATE TRIGGER board_version_${t}_delete AFTER DELETE ON ${t} BEGIN ${bump} END;`);
  }
  out.push(`CREATE TRIGGER board_version_run_metadata_update AFTER UPDATE ON run_metadata BEGIN ${bump} END;`);
  out.push(`CREATE TRIGGER board_version_stall_facts_update AFTER UPDATE ON stall_facts BEGIN ${bump} END;`);
  return out.join('\n  ');
}

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
