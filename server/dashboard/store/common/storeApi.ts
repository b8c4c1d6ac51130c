/**
 * The store's interface (docs/design.md#team-dashboard), split by who uses it:
 * everything above server/dashboard/store/ (hub, routes, run manager, import,
 * export) talks to a `DashboardStore`'s roles and never learns whether SQLite
 * or PostgreSQL is behind them. Reads and one-off writes are async
 * (PostgreSQL answers over a socket); the live path is a synchronous queue
 * (`IngestStore.push`) whose events the store numbers — at once when this
 * process is the database's only writer (SQLite, behind the data-folder
 * lock), at commit when several may write (PostgreSQL) — and emits,
 * numbered and in order, to its subscribers. The store never calls into its
 * users: they call it, and subscribe to what it emits.
 */
import type { RunListItem, RequestRow, StallEntry } from '../../../../shared/protocol/apiSchemas.ts';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import type { StoreHealth } from '../../../../shared/protocol/storeHealth.ts';
import type { BoardRun } from '../../../../shared/stalls/stallBoard.ts';
import type { BoardPick, StallBoardReply } from '../../../../shared/stalls/stallsApi.ts';
import type { Kysely } from 'kysely';
import type { Effects } from './effects.ts';
import type { StallscopeDb } from './schema.ts';
import type { TokenStore } from './tokens.ts';
import type { RetentionStore } from './retention.ts';
import type { MetricsQueries } from './metricsQueries.ts';
import type {
  BoardFilter,
  NewRun,
  QueueStats,
  RemoteChange,
  RowSlice,
  RunFilter,
  RunUpdate,
  StallRow,
  StoredEvent,
  StoredRunRow,
} from './records.ts';

/** What the store emits on the live path; a subscriber gives the ones it listens to. */
export interface IngestListener {
  /** Every pushed event once, numbered, in seq order per run. */
  numbered(runId: string, seq: number, json: string): void;
  /** Changes other processes made (never this process's own writes). */
  remote(c: RemoteChange): void;
  /** The database went away or came back. */
  healthChanged(): void;
}

/** The live path (the hub, the ingest endpoint, reported runs, /metrics' queue gauges). */
export interface IngestStore {
  /** Whether this process is the database's only writer (then its own ring and counters are the whole truth). */
  readonly soleWriter: boolean;
  /** Queues one event of a stored run; never waits on I/O. */
  push(runId: string, json: string, effects: Effects): void;
  /** A run live in this process: `state` (kept up to date by its owner) is stored with each batch; null: no more. */
  liveState(runId: string, state: RunState | null): void;
  /** Starts emitting to `l`; returns the unsubscribe. */
  subscribe(l: Partial<IngestListener>): () => void;
  /** Tells other processes a run started or ended. */
  announce(runId: string, status: string): void;
  /** Commits everything queued; while the database is away, settles after one attempt (the rest stays buffered). */
  flush(): Promise<void>;
  /** Settles when what is queued now is written — or at once while the database is away (it is buffered). */
  settled(): Promise<void>;
  /** True once what is queued now is committed, through an outage too; false after `maxWaitMs`. */
  committed(maxWaitMs: number): Promise<boolean>;
  /** Whether `events` more can be queued: false once the outage buffer is full (the caller answers 503). */
  hasRoom(events: number): boolean;
  health(): StoreHealth;
  /** The live queue for /metrics: events not yet written, since when the oldest waits, batches that failed. */
  queueStats(): QueueStats;
}

/** A stored run read (REST, the exports, the hub's replay of committed events). */
export interface RunReads {
  exists(id: string): Promise<boolean>;
  /** Ids of the runs stored as running (live in some process of the database, or left by one that is gone). */
  runningIds(): Promise<string[]>;
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
}

/** A run's one-off writes (the run manager, reported runs, imports, the end of a run). */
export interface RunWrites {
  insertRun(n: NewRun): Promise<void>;
  update(id: string, f: RunUpdate): Promise<void>;
  /** Stores part `part` (from 0) of a serialized result; it counts once `update({ resultParts })` says how many. */
  writeResultPart(id: string, part: number, text: string): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** A run with its final columns, in one transaction (an import, a move between stores). */
  insertWhole(n: NewRun, f: RunUpdate): Promise<void>;
  /** One slice of request rows, in one transaction (a later row for an index replaces an earlier one). */
  writeRows(runId: string, rows: RowSlice): Promise<void>;
}

/** What the stall board reads (docs/design.md#stall-board). */
export interface BoardReads {
  /** The newest runs matching `f`, each with its stall evidence fingerprinted. */
  runs(f: BoardFilter): Promise<{ runs: BoardRun[]; truncated: boolean }>;
  /** The board over those runs (`GET /api/stalls`): the groups `pick` names, each job's strip `last` runs long. */
  view(f: BoardFilter, last: number, pick?: BoardPick): Promise<StallBoardReply>;
  /**
   * The same board as the route's reply (`stallsReply`), serialized: SQLite serializes it on its reader thread, so
   * a reply of ~1 MB is neither cloned into nor serialized on the dashboard's event loop.
   */
  viewJson(f: BoardFilter, last: number, pick?: BoardPick): Promise<string>;
}

/** Starting a dashboard and moving runs between stores (`stallscope db export` / `db import`). */
export interface StoreAdmin {
  /**
   * Marks runs left `running` by a process that is gone as `interrupted` (a `run.status` event appended so
   * replays end the same way); returns their ids.
   */
  recoverInterrupted(now: number): Promise<string[]>;
  /** Every run id, oldest first. */
  allRunIds(): Promise<string[]>;
  /** Events as they were numbered elsewhere, kept with their seq; duplicates ignored. */
  writeEvents(runId: string, events: readonly StoredEvent[]): Promise<void>;
  stallRows(runId: string): Promise<StallRow[]>;
  /** Stall report rows as stored; duplicates ignored. */
  writeStallRows(runId: string, rows: readonly StallRow[]): Promise<void>;
}

/** One store, by role: each user takes the role it needs. */
export interface DashboardStore {
  readonly kind: 'sqlite' | 'postgres';
  readonly ingest: IngestStore;
  readonly runReads: RunReads;
  readonly runWrites: RunWrites;
  readonly board: BoardReads;
  /** /metrics' gauges (docs/design.md#metrics). */
  readonly metrics: MetricsQueries;
  /** Scoped API tokens (docs/design.md#tokens). */
  readonly tokens: TokenStore;
  /** Retention (docs/design.md#retention). */
  readonly retention: RetentionStore;
  readonly admin: StoreAdmin;
  /**
   * A typed query builder on the same database, for queries off the live path that are written once for both
   * stores (schema.ts); its queries are async on either.
   */
  readonly kysely: Kysely<StallscopeDb>;
  close(): Promise<void>;
}
