/**
 * The embedded store: one SQLite database (WAL) in the data folder, read
 * through `RunQueries`, written live through the `BatchWriter`, and a
 * checkpointer thread; its roles (common/storeApi.ts) are the small classes
 * beside it. This process is the database's only writer (the data-folder lock).
 */
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { IngestFeed } from '../common/ingestFeed.ts';
import { KyselyMetricsQueries } from '../common/metricsQueries.ts';
import { RequestPages } from '../common/requestPages.ts';
import { KyselyRetentionStore } from '../common/retention.ts';
import type { StallscopeDb } from '../common/schema.ts';
import type { DashboardStore } from '../common/storeApi.ts';
import { KyselyTokenStore } from '../common/tokens.ts';
import { Checkpointer } from './checkpointer.ts';
import { DB_FILE, openDb } from './db.ts';
import { ReaderThread } from './readerThread.ts';
import { RunQueries } from './runQueries.ts';
import { SqliteAdmin } from './sqliteAdmin.ts';
import { SqliteIngest } from './sqliteIngest.ts';
import { SqliteBoard, SqliteRuns } from './sqliteRuns.ts';
import { BatchWriter } from './writer.ts';

export interface StoreOptions {
  /** null → in memory. */
  dataDir: string | null;
  flushIntervalMs?: number;
  maxBatch?: number;
}

export class SqliteStore implements DashboardStore {
  readonly kind = 'sqlite' as const;
  readonly db: Database.Database;
  readonly runs: RunQueries;
  readonly writer: BatchWriter;
  readonly kysely: Kysely<StallscopeDb>;
  readonly ingest: SqliteIngest;
  readonly runReads: SqliteRuns;
  readonly runWrites: SqliteRuns;
  readonly board: SqliteBoard;
  readonly metrics: KyselyMetricsQueries;
  readonly tokens: KyselyTokenStore;
  readonly retention: KyselyRetentionStore;
  readonly admin: SqliteAdmin;
  private readonly checkpointer: Checkpointer | null = null;
  /** Heavy reads (the board) off the event loop; none in memory, where no other connection sees the data. */
  readonly reader: ReaderThread | null = null;
  private readerClosed: Promise<void> = Promise.resolve();

  constructor(opts: StoreOptions) {
    this.db = openDb(opts.dataDir);
    if (opts.dataDir !== null) {
      this.db.pragma('wal_autocheckpoint = 0');
      this.db.pragma('journal_size_limit = 33554432'); // truncate a WAL grown past 32 MB once it is reset
      this.checkpointer = new Checkpointer(join(opts.dataDir, DB_FILE));
      this.reader = new ReaderThread(join(opts.dataDir, DB_FILE));
    }
    this.runs = new RunQueries(this.db);
    // Never destroyed: that would close the connection this store closes itself.
    this.kysely = new Kysely<StallscopeDb>({ dialect: new SqliteDialect({ database: this.db }) });
    this.tokens = new KyselyTokenStore(this.kysely);
    this.retention = new KyselyRetentionStore(this.kysely);
    this.metrics = new KyselyMetricsQueries(this.kysely);
    const feed = new IngestFeed();
    this.writer = new BatchWriter(this.db, {
      intervalMs: opts.flushIntervalMs,
      maxBatch: opts.maxBatch,
      stateOf: (id) => feed.stateOf(id),
      onError: (e) =>
        process.stderr.write(`stallscope: a batch of live events could not be stored: ${e.stack ?? e.message}\n`),
    });
    this.ingest = new SqliteIngest(feed, this.runs, this.writer);
    this.runReads = this.runWrites = new SqliteRuns(this.db, this.runs, new RequestPages(this.kysely), this.ingest);
    this.board = new SqliteBoard(this.db, this.kysely, this.reader);
    this.admin = new SqliteAdmin(this.db, this.runs, this.ingest);
  }

  async close(): Promise<void> {
    this.closeNow();
    await this.closed();
  }

  /** Flushes and closes the connection now (the checkpointer thread ends on its own; see closed()). */
  closeNow(): void {
    this.writer.close();
    this.checkpointer?.stop();
    this.readerClosed = this.reader?.close() ?? Promise.resolve();
    this.db.close();
  }

  /**
   * Settles once close is complete on every thread: the checkpointer's
   * connection is closed too, so the data folder can be removed or reused
   * (its -wal/-shm files are not touched afterwards).
   */
  async closed(): Promise<void> {
    await this.checkpointer?.exited;
    await this.readerClosed;
  }
}
