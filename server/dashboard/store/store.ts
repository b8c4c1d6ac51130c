/**
 * The embedded store: one SQLite database (WAL) in the data folder, read
 * through `RunQueries`, written live through the `BatchWriter`. This process
 * is the database's only writer (the data-folder lock), so it numbers a run's
 * events itself, at once, from the run's stored `last_seq`. On open, runs a
 * previous process left `running` (it crashed or was killed) can be marked
 * `interrupted`, keeping every request and stall report already committed.
 */
import type Database from 'better-sqlite3';
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { RunEvent, RunState } from '../../../shared/protocol/protocol.ts';
import type { StoreHealth } from '../../../shared/protocol/storeHealth.ts';
import { join } from 'node:path';
import { DB_FILE, openDb } from './db.ts';
import { Checkpointer } from './checkpointer.ts';
import { RunQueries } from './runQueries.ts';
import { BatchWriter, type Effects } from './writer.ts';
import { Kysely, SqliteDialect } from 'kysely';
import type { StallscopeDb } from './schema.ts';
import { boardRuns } from './boardQueries.ts';
import { allStallRows, insertStallRows } from './sqliteMoves.ts';
import type {
  BoardFilter,
  QueueStats,
  DashboardStore,
  NewRun,
  RowSlice,
  RunFilter,
  RunUpdate,
  StallRow,
  StoredEvent,
} from './storeApi.ts';
import { RequestPages } from './requestPages.ts';
import { KyselyTokenStore, type TokenStore } from './tokens.ts';
import { KyselyRetentionStore, type RetentionStore } from './retention.ts';
import { KyselyMetricsQueries, type MetricsQueries } from './metricsQueries.ts';

export interface StoreOptions {
  /** null → in memory. */
  dataDir: string | null;
  flushIntervalMs?: number;
  maxBatch?: number;
  now?: () => number;
}

export class Store implements DashboardStore {
  readonly kind = 'sqlite' as const;
  readonly soleWriter = true;
  readonly db: Database.Database;
  readonly runs: RunQueries;
  readonly writer: BatchWriter;
  readonly kysely: Kysely<StallscopeDb>;
  readonly tokens: TokenStore;
  readonly retention: RetentionStore;
  readonly metrics: MetricsQueries;
  private readonly pages: RequestPages;
  private stateOf: (runId: string) => RunState | undefined = () => undefined;
  private numbered: (runId: string, seq: number, json: string) => void = () => undefined;
  /** The last seq given to each run this process wrote to (its stored last_seq plus what is queued). */
  private readonly seqs = new Map<string, number>();

  private readonly checkpointer: Checkpointer | null = null;

  constructor(opts: StoreOptions) {
    this.db = openDb(opts.dataDir);
    if (opts.dataDir !== null) {
      this.db.pragma('wal_autocheckpoint = 0');
      this.db.pragma('journal_size_limit = 33554432'); // truncate a WAL grown past 32 MB once it is reset
      this.checkpointer = new Checkpointer(join(opts.dataDir, DB_FILE));
    }
    this.runs = new RunQueries(this.db);
    // Never destroyed: that would close the connection this store closes itself.
    this.kysely = new Kysely<StallscopeDb>({ dialect: new SqliteDialect({ database: this.db }) });
    this.tokens = new KyselyTokenStore(this.kysely);
    this.retention = new KyselyRetentionStore(this.kysely);
    this.metrics = new KyselyMetricsQueries(this.kysely);
    this.pages = new RequestPages(this.kysely);
    this.writer = new BatchWriter(this.db, {
      intervalMs: opts.flushIntervalMs,
      maxBatch: opts.maxBatch,
      stateOf: (id) => this.stateOf(id),
      onError: (e) =>
        process.stderr.write(`stallscope: a batch of live events could not be stored: ${e.stack ?? e.message}\n`),
    });
  }

  setStateSource(fn: (runId: string) => RunState | undefined): void {
    this.stateOf = fn;
  }

  onNumbered(fn: (runId: string, seq: number, json: string) => void): void {
    this.numbered = fn;
  }

  push(runId: string, json: string, effects: Effects): void {
    const seq = (this.seqs.get(runId) ?? this.runs.lastSeq(runId)) + 1;
    this.seqs.set(runId, seq);
    this.numbered(runId, seq, json);
    this.writer.push(runId, seq, json, effects);
  }

  /** Synchronous underneath: the promise is settled when it is returned (callers may rely on the commit being done). */
  flush(): Promise<void> {
    this.writer.flush();
    return Promise.resolve();
  }

  /** Nothing waits: a batch is written within the writer's interval, and a crash loses at most that batch. */
  settled(): Promise<void> {
    return Promise.resolve();
  }

  hasRoom(): boolean {
    return true;
  }

  queueStats(): QueueStats {
    return {
      events: this.writer.pendingCount,
      sinceMs: this.writer.pendingSinceMs,
      failedBatches: this.writer.stats.failedBatches,
    };
  }

  health(): StoreHealth {
    return {
      database: 'sqlite',
      connected: true,
      buffered: this.writer.pendingCount,
      capacity: 0,
      downSinceMs: null,
      lastError: null,
    };
  }

  /** One process per data folder: no one else writes. */
  onRemote(): void {}
  /** An embedded database does not go away. */
  onHealthChange(): void {}
  announce(): void {}

  async insertRun(n: NewRun): Promise<void> {
    this.runs.insertRun(n);
  }
  async exists(id: string): Promise<boolean> {
    return this.runs.exists(id);
  }
  async update(id: string, f: RunUpdate): Promise<void> {
    this.runs.update(id, f);
  }
  async writeResultPart(id: string, part: number, text: string): Promise<void> {
    this.runs.writeResultPart(id, part, text);
  }
  async list(f: RunFilter) {
    return this.runs.list(f);
  }
  async get(id: string) {
    return this.runs.get(id);
  }
  async result(id: string) {
    return this.runs.result(id);
  }
  async stallReports(id: string) {
    return this.runs.stallReports(id);
  }
  async requests(id: string, offset: number, limit: number, status?: string) {
    const { total, json } = await this.pages.page(id, { offset, limit, status });
    return { total, requests: json.map((s) => JSON.parse(s) as RequestRow) };
  }
  requestsJson(id: string, offset: number, limit: number, status?: string) {
    return this.pages.page(id, { offset, limit, status });
  }
  async eventsAfter(id: string, after: number, limit: number): Promise<StoredEvent[]> {
    return this.runs.eventsAfter(id, after, limit);
  }
  async delete(id: string): Promise<boolean> {
    this.seqs.delete(id);
    return this.runs.delete(id);
  }
  async boardRuns(f: BoardFilter) {
    return boardRuns(this.db, f);
  }

  async insertWhole(n: NewRun, f: RunUpdate): Promise<void> {
    this.db.transaction(() => {
      this.runs.insertRun(n);
      this.runs.update(n.id, f);
    })();
  }
  async writeRows(runId: string, rows: RowSlice): Promise<void> {
    this.runs.writeRowSlice(runId, rows);
  }
  async writeEvents(runId: string, events: readonly StoredEvent[]): Promise<void> {
    this.runs.insertEvents(runId, events);
  }
  async writeStallRows(runId: string, rows: readonly StallRow[]): Promise<void> {
    insertStallRows(this.db, runId, rows);
  }
  async stallRows(runId: string): Promise<StallRow[]> {
    return allStallRows(this.db, runId);
  }
  async allRunIds(): Promise<string[]> {
    return this.runs.allIds();
  }

  async recoverInterrupted(now: number): Promise<string[]> {
    return this.recoverInterruptedNow(now);
  }

  /** recoverInterrupted, synchronously (the SQLite store's own callers and tests). */
  recoverInterruptedNow(now: number): string[] {
    const ids: string[] = [];
    for (const r of this.runs.runningIds()) {
      const seq = r.lastSeq + 1;
      const ev: RunEvent = {
        type: 'run.status',
        t: 0,
        status: 'interrupted',
        message: 'the dashboard stopped while this run was running',
      };
      const state = r.state
        ? { ...r.state, status: 'interrupted' as const, seq, inFlight: 0, verdict: r.state.verdict ?? 'interrupted' }
        : undefined;
      this.db.transaction(() => {
        this.db
          .prepare('INSERT OR IGNORE INTO events (run_id, seq, json) VALUES (?,?,?)')
          .run(r.id, seq, JSON.stringify(ev));
        // An import stopped while its result's parts were written: those parts never became its result.
        this.db
          .prepare('DELETE FROM run_results WHERE run_id = ? AND (SELECT result_parts FROM runs WHERE id = ?) IS NULL')
          .run(r.id, r.id);
        this.runs.update(r.id, {
          status: 'interrupted',
          verdict: state?.verdict ?? 'interrupted',
          finishedAtMs: now,
          lastSeq: seq,
          state,
        });
      })();
      this.seqs.delete(r.id);
      ids.push(r.id);
    }
    return ids;
  }

  async close(): Promise<void> {
    this.closeNow();
    await this.closed();
  }

  /** Flushes and closes the connection now (the checkpointer thread ends on its own; see closed()). */
  closeNow(): void {
    this.writer.close();
    this.checkpointer?.stop();
    this.db.close();
  }

  /**
   * Settles once close is complete on every thread: the checkpointer's
   * connection is closed too, so the data folder can be removed or reused
   * (its -wal/-shm files are not touched afterwards).
   */
  async closed(): Promise<void> {
    await this.checkpointer?.exited;
  }
}
