/**
 * The dashboard's persistence: one SQLite database (WAL), read through
 * `RunQueries`, written live through the `BatchWriter`. On open, runs a
 * previous process left `running` (it crashed or was killed) become
 * `interrupted`, keeping every request and stall report already committed.
 */
import type Database from 'better-sqlite3';
import type { RunEvent, RunState } from '../../../shared/protocol.ts';
import { join } from 'node:path';
import { DB_FILE, openDb } from './db.ts';
import { Checkpointer } from './checkpointer.ts';
import { RunQueries } from './runQueries.ts';
import { BatchWriter } from './writer.ts';
import { sqliteKysely } from './kysely.ts';
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

export class Store {
  readonly db: Database.Database;
  readonly runs: RunQueries;
  readonly writer: BatchWriter;
  /** Tokens, retention and /metrics, in Kysely over this connection (the same queries serve PostgreSQL). */
  readonly tokens: TokenStore;
  readonly retention: RetentionStore;
  readonly metrics: MetricsQueries;
  private stateOf: (runId: string) => RunState | undefined = () => undefined;

  private readonly checkpointer: Checkpointer | null = null;

  constructor(opts: StoreOptions) {
    this.db = openDb(opts.dataDir);
    if (opts.dataDir !== null) {
      this.db.pragma('wal_autocheckpoint = 0');
      this.db.pragma('journal_size_limit = 33554432'); // truncate a WAL grown past 32 MB once it is reset
      this.checkpointer = new Checkpointer(join(opts.dataDir, DB_FILE));
    }
    this.runs = new RunQueries(this.db);
    const k = sqliteKysely(this.db);
    this.tokens = new KyselyTokenStore(k);
    this.retention = new KyselyRetentionStore(k);
    this.metrics = new KyselyMetricsQueries(k);
    this.writer = new BatchWriter(this.db, {
      intervalMs: opts.flushIntervalMs,
      maxBatch: opts.maxBatch,
      stateOf: (id) => this.stateOf(id),
      onError: (e) =>
        process.stderr.write(`stallscope: a batch of live events could not be stored: ${e.stack ?? e.message}\n`),
    });
  }

  /** The hub tells the writer where live run states are. */
  setStateSource(fn: (runId: string) => RunState | undefined): void {
    this.stateOf = fn;
  }

  /**
   * Marks runs left `running` as `interrupted` and appends a `run.status`
   * event so replays end the same way. Returns their ids.
   */
  recoverInterrupted(now: number): string[] {
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
      ids.push(r.id);
    }
    return ids;
  }

  close(): void {
    this.writer.close();
    this.checkpointer?.stop();
    this.db.close();
  }

  /**
   * Settles once close() is complete on every thread: the checkpointer's
   * connection is closed too, so the data folder can be removed or reused
   * (its -wal/-shm files are not touched afterwards).
   */
  async closed(): Promise<void> {
    await this.checkpointer?.exited;
  }
}
