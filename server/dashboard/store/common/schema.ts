/**
 * The schema's one declaration: the stored tables as Kysely sees them, the
 * same on both stores (SQLite and PostgreSQL hold the same columns, but
 * PostgreSQL's `PgRunsOnly`; docs/design.md#team-dashboard). Both stores'
 * migrations are checked against it (test/server/dashboard/store/schema.test.ts).
 * Queries that are not on the live path can be written once against
 * `DashboardStore.kysely` and run on either database.
 */
import type { Generated } from 'kysely';

export interface RunsTable {
  id: string;
  source: string;
  status: string;
  verdict: string | null;
  label: string | null;
  model: string | null;
  target: string | null;
  dataset: string | null;
  num_prompts: number | null;
  max_concurrency: number | null;
  request_rate: string | null;
  fail_fast: Generated<number>;
  created_at_ms: number;
  started_at_ms: number | null;
  finished_at_ms: number | null;
  last_seq: Generated<number>;
  spec_json: string | null;
  config_json: string | null;
  state_json: string | null;
  summary_json: string | null;
  result_json: string | null;
  import_json: string | null;
  metadata_json: Generated<string>;
  error: string | null;
  result_parts: number | null;
  first_timeout_json: string | null;
  server_identity_json: string | null;
  /** 1 = never pruned by retention (docs/design.md#retention). */
  pinned: Generated<number>;
  /** When retention removed the run's request rows and events; null while they are kept. */
  pruned_at_ms: number | null;
  /** The report token that created the run (its id); null when another scope did (docs/design.md#tokens). */
  reported_by_token: string | null;
  /** Reported events the database refused to store (docs/design.md#outage-buffer); 0 when none. */
  dropped_events: Generated<number>;
  /** The database's words for the last refusal; null when none. */
  dropped_error: string | null;
}

/**
 * What only PostgreSQL's runs hold (pg/pgMigrations.ts, migration 1): each run's insertion order (SQLite's rowid)
 * and the dashboard process that owns it while it runs.
 */
export interface PgRunsOnly {
  ord: Generated<number>;
  owner: number | null;
}

/**
 * What only PostgreSQL holds (pg/pgMigrations.ts, migration 5): each writer batch committed in the last day, by the
 * id the writer gave it, and the seqs it was numbered (per run `[runId, firstSeq, count]`, JSON) — so a writer that
 * lost the answer to its COMMIT learns whether it committed instead of writing the batch twice. Read by name by
 * test/server/dashboard/store/schema.test.ts (through the TypeScript checker, which knip cannot follow).
 *
 * @public
 */
export interface PgOnlyTables {
  ingest_batches: { id: string; numbering: string; at_ms: number };
}

/** Scoped API tokens, stored as their SHA-256 only (docs/design.md#tokens). */
export interface ApiTokensTable {
  id: string;
  name: string;
  scope: string;
  /** SHA-256 of the token, hex. */
  token_hash: string;
  prefix: string;
  created_at_ms: number;
  last_used_at_ms: number | null;
  revoked_at_ms: number | null;
}

/** Requests that ended together, one row per range (docs/design.md#bulk-unsent); `to_idx` is exclusive. */
export interface RequestRangesTable {
  run_id: string;
  from_idx: number;
  to_idx: number;
  status: string;
  /** Request ids are id_prefix || idx; null: empty ids. */
  id_prefix: string | null;
  /** The RequestRow every request of the range shows, but its index and id. */
  row_json: string;
}

/**
 * The stall board's facts (docs/design.md#stall-board; SQLite migration 10, PostgreSQL 8): a row per run and
 * fingerprint of its evidence, kept by triggers wherever evidence is written, indexed by job, fingerprint and time.
 */
export interface StallFactsTable {
  run_id: string;
  /** 'stack': a stall report's (watchdog, py-spy); 'timeout': the run's first structural timeout's (phase only). */
  kind: string;
  fingerprint: string;
  phase: string;
  /** When the run happened: its start, or an import's file date; else when it was added. */
  at_ms: number;
  /** Its `ci_pipeline` and `ci_step` ('' when it has none): its job. */
  pipeline: Generated<string>;
  step: Generated<string>;
}

/**
 * What /metrics counts, one narrow row per run (docs/design.md#metrics; SQLite migration 12, PostgreSQL 10), kept by
 * triggers from the run's row, its `ci_*` metadata and its stall facts; deleted with the run.
 */
export interface RunLabelsTable {
  run_id: string;
  status: string;
  source: string;
  verdict: string | null;
  /** Its `ci_pipeline`, `ci_step`, `ci_node`; null when it has none. */
  pipeline: string | null;
  step: string | null;
  node: string | null;
  /** 1 when it has a stall fact: the board's `stalled` outcome. */
  stalled: number;
  pinned: number;
  /** 1 when `pruned_at_ms` is set. */
  pruned: number;
  last_seq: number;
}

/**
 * The stall board's version (one row, id 1): bumped by triggers with every write the board reads
 * (docs/design.md#board-cache).
 */
export interface BoardVersionTable {
  id: number;
  v: number;
}

export interface StallscopeDb {
  runs: RunsTable;
  run_metadata: { run_id: string; key: string; value: string };
  requests: { run_id: string; idx: number; row_json: string; status: string };
  events: { run_id: string; seq: number; json: string };
  stall_reports: {
    run_id: string;
    worker_id: number;
    op_id: number;
    seq: number;
    phase: string;
    report_json: string;
    recovered_json: string | null;
    fingerprint: string | null;
    fingerprint_json: string | null;
  };
  stall_facts: StallFactsTable;
  run_labels: RunLabelsTable;
  board_version: BoardVersionTable;
  run_results: { run_id: string; part: number; text: string };
  api_tokens: ApiTokensTable;
  request_ranges: RequestRangesTable;
}
