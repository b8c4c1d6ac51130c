/**
 * The tables the fleet features (tokens, retention, /metrics) read and write,
 * typed for Kysely, and a Kysely over the store's better-sqlite3 handle. Their
 * queries are written once in Kysely so the same code runs on PostgreSQL
 * (Kysely's PostgresDialect over a pg pool) as on SQLite. Integers are read
 * through `Number()`: pg returns BIGINT and COUNT as strings.
 */
import type Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

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

/** The columns of `runs` these features use (the table has more). */
export interface RunsTable {
  id: string;
  source: string;
  status: string;
  verdict: string | null;
  created_at_ms: number;
  started_at_ms: number | null;
  finished_at_ms: number | null;
  last_seq: number;
  /** 1 = never pruned by retention. */
  pinned: number;
  /** When retention removed the run's request rows and events; null while they are kept. */
  pruned_at_ms: number | null;
  /** The report token that created the run (its id); null when another scope did. */
  reported_by_token: string | null;
}

export interface RunMetadataTable {
  run_id: string;
  key: string;
  value: string;
}

export interface EventsTable {
  run_id: string;
  seq: number;
  json: string;
}

export interface RequestsTable {
  run_id: string;
  idx: number;
  row_json: string;
  status: string;
}

export interface StallReportsTable {
  run_id: string;
  worker_id: number;
  op_id: number;
  seq: number;
  phase: string;
  report_json: string;
  fingerprint: string | null;
}

export interface FleetTables {
  api_tokens: ApiTokensTable;
  runs: RunsTable;
  run_metadata: RunMetadataTable;
  events: EventsTable;
  requests: RequestsTable;
  stall_reports: StallReportsTable;
}

export type FleetDb = Kysely<FleetTables>;

/**
 * A Kysely sharing the store's connection. Never `destroy()` it: that would close the store's database;
 * the store closes it.
 */
export function sqliteKysely(db: Database.Database): FleetDb {
  return new Kysely<FleetTables>({ dialect: new SqliteDialect({ database: db }) });
}
