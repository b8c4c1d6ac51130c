/**
 * The one store interface (docs/design.md#team-dashboard): everything above
 * server/dashboard/store/ (hub, routes, run manager, import, export) talks to
 * a `DashboardStore` and never learns whether SQLite or PostgreSQL is behind
 * it. Reads and one-off writes are async (PostgreSQL answers over a socket);
 * the live path is a synchronous queue (`push`) whose events the store numbers
 * — at once when this process is the database's only writer (SQLite, behind
 * the data-folder lock), at commit when several may write (PostgreSQL) — and
 * hands back, numbered and in order, through `onNumbered`.
 */
import type { RunListItem, RequestRow, StallEntry } from '../../../shared/protocol/apiSchemas.ts';
import type { RunState, RunSummary } from '../../../shared/protocol/protocol.ts';
import type { StoreHealth } from '../../../shared/protocol/storeHealth.ts';
import type { FirstTimeout } from '../../../shared/stalls/stallEvidence.ts';
import type { ServerIdentity } from '../../../shared/runInfo/serverIdentity.ts';
import type { BoardRun } from '../../../shared/stalls/stallBoard.ts';
import type { Effects } from './writer.ts';
import type { Kysely } from 'kysely';
import type { StallscopeDb } from './schema.ts';
import type { TokenStore } from './tokens.ts';
import type { RetentionStore } from './retention.ts';
import type { MetricsQueries } from './metricsQueries.ts';

export type RunSource = RunListItem['source'];

export interface QueueStats {
  /** Events accepted and not yet written. */
  events: number;
  /** When the oldest of them was queued (epoch ms; meaningless while `events` is 0). */
  sinceMs: number;
  /** Batches the store could not write (dropped, or retried while the database was away). */
  failedBatches: number;
}

/** What a new run row holds; the rest is filled as it runs. */
export interface NewRun {
  id: string;
  source: RunSource;
  status: string;
  label: string | null;
  model: string | null;
  target: string | null;
  dataset: string | null;
  numPrompts: number | null;
  maxConcurrency: number | null;
  requestRate: string | null;
  failFast: boolean;
  createdAtMs: number;
  startedAtMs?: number | null;
  spec?: unknown;
  config?: unknown;
  metadata: Record<string, string>;
}

export interface RunFilter {
  verdict?: string;
  status?: string;
  text?: string;
  source?: string;
  /** Exact key=value matches, all required. */
  metadata?: [string, string][];
  /** Happened at or after / before (epoch ms). */
  since?: number;
  until?: number;
  limit: number;
  offset: number;
}

export interface BoardFilter extends Pick<RunFilter, 'metadata' | 'since' | 'until'> {
  /** The most runs read (the newest); the reply says when more matched. */
  maxRuns: number;
}

/** The columns `update` may set. */
export interface RunUpdate {
  status?: string;
  verdict?: string | null;
  startedAtMs?: number | null;
  finishedAtMs?: number | null;
  summary?: unknown;
  result?: unknown;
  /** How many result parts hold the result, set once they are all written (see writeResultPart). */
  resultParts?: number;
  importInfo?: unknown;
  error?: string | null;
  state?: RunState;
  lastSeq?: number;
  config?: unknown;
  target?: string;
  /** Set by the live writer as events come; given here only when a run moves between stores. */
  firstTimeout?: FirstTimeout;
  serverIdentity?: ServerIdentity;
}

/** The full row for GET /api/runs/:id. */
export type StoredRunRow = RunListItem & {
  spec: unknown;
  config: unknown;
  summary: RunSummary | null;
  importInfo: unknown;
  error: string | null;
  lastSeq: number;
  state: RunState | null;
  firstTimeout: FirstTimeout | null;
  serverIdentity: ServerIdentity | null;
};

/** One serialized numbered event: `json` is the RunEvent. */
export interface StoredEvent {
  seq: number;
  json: string;
}

/** Request rows already serialized (an import's slice). */
export interface RowSlice {
  index: number[];
  json: string[];
  status: string[];
}

/** Something another dashboard process wrote to the same database. */
export type RemoteChange =
  { kind: 'events'; runId: string; lastSeq: number } | { kind: 'runs'; runId: string; status: string };

export interface DashboardStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Whether this process is the database's only writer (then its own ring and counters are the whole truth). */
  readonly soleWriter: boolean;
  /**
   * A typed query builder on the same database, for queries off the live path that are written once for both
   * stores (schema.ts); its queries are async on either.
   */
  readonly kysely: Kysely<StallscopeDb>;
  /** Scoped API tokens (docs/design.md#tokens), retention (docs/design.md#retention), /metrics' gauges. */
  readonly tokens: TokenStore;
  readonly retention: RetentionStore;
  readonly metrics: MetricsQueries;

  // The live path.
  /** The hub's numbering callback: every pushed event once, in seq order per run. */
  onNumbered(fn: (runId: string, seq: number, json: string) => void): void;
  /** The run's current state, stored with each batch so a restart shows the counts reached. */
  setStateSource(fn: (runId: string) => RunState | undefined): void;
  /** Queues one event of a stored run; never waits on I/O. */
  push(runId: string, json: string, effects: Effects): void;
  /** Commits everything queued; while the database is away, settles after one attempt (the rest stays buffered). */
  flush(): Promise<void>;
  /** Settles when what is queued now is written — or at once while the database is away (it is buffered). */
  settled(): Promise<void>;
  /** Whether `events` more can be queued: false once the outage buffer is full (the caller answers 503). */
  hasRoom(events: number): boolean;
  health(): StoreHealth;
  /** The live queue for /metrics: events not yet written, since when the oldest waits, batches that failed. */
  queueStats(): QueueStats;
  /** Told when the database goes away or comes back. */
  onHealthChange(fn: () => void): void;
  /** Changes other processes made (never called for this process's own writes). */
  onRemote(fn: (c: RemoteChange) => void): void;
  /** Tells other processes a run started or ended. */
  announce(runId: string, status: string): void;

  // Runs.
  insertRun(n: NewRun): Promise<void>;
  exists(id: string): Promise<boolean>;
  update(id: string, f: RunUpdate): Promise<void>;
  /** Stores part `part` (from 0) of a serialized result; it counts once `update({ resultParts })` says how many. */
  writeResultPart(id: string, part: number, text: string): Promise<void>;
  list(f: RunFilter): Promise<{ runs: RunListItem[]; total: number }>;
  get(id: string): Promise<StoredRunRow | null>;
  /** The stored vLLM result object, or null. */
  result(id: string): Promise<Record<string, unknown> | null>;
  stallReports(id: string): Promise<StallEntry[]>;
  /** A page of request rows, a row per request (a stored range's synthesised); `status` keeps those in that state. */
  requests(
    id: string,
    offset: number,
    limit: number,
    status?: string,
  ): Promise<{ total: number; requests: RequestRow[] }>;
  /** The same page serialized (RequestRow JSON), for replies that splice rows in unparsed. */
  requestsJson(id: string, offset: number, limit: number, status?: string): Promise<{ total: number; json: string[] }>;
  /** Serialized events with seq > after, in order. */
  eventsAfter(id: string, after: number, limit: number): Promise<StoredEvent[]>;
  delete(id: string): Promise<boolean>;
  boardRuns(f: BoardFilter): Promise<{ runs: BoardRun[]; truncated: boolean }>;

  // Imports and moves between stores.
  /** A run with its final columns, in one transaction. */
  insertWhole(n: NewRun, f: RunUpdate): Promise<void>;
  /** One slice of request rows, in one transaction (a later row for an index replaces an earlier one). */
  writeRows(runId: string, rows: RowSlice): Promise<void>;
  /** Events as they are numbered elsewhere (a move between stores), kept with their seq; duplicates ignored. */
  writeEvents(runId: string, events: readonly StoredEvent[]): Promise<void>;
  /** Stall report rows as stored (a move between stores); duplicates ignored. */
  writeStallRows(runId: string, rows: readonly StallRow[]): Promise<void>;
  stallRows(runId: string): Promise<StallRow[]>;
  /** Every run id, oldest first (a move between stores). */
  allRunIds(): Promise<string[]>;

  /**
   * Marks runs left `running` by a process that is gone as `interrupted` (a `run.status` event appended so
   * replays end the same way); returns their ids.
   */
  recoverInterrupted(now: number): Promise<string[]>;
  close(): Promise<void>;
}

/** A stall report row as stored, for moving runs between stores. */
export interface StallRow {
  workerId: number;
  opId: number;
  seq: number;
  phase: string;
  reportJson: string;
  recoveredJson: string | null;
  fingerprint: string | null;
  fingerprintJson: string | null;
}
