/**
 * The SQLite store's start-up and moves: on open, runs a previous process
 * left `running` (it crashed or was killed) can be marked `interrupted`,
 * keeping every request and stall report already committed; a run's events
 * and stall rows are read and written as stored for `stallscope db`.
 */
import type Database from 'better-sqlite3';
import type { RunEvent } from '../../../../shared/protocol/protocol.ts';
import type { StallRow, StoredEvent } from '../common/records.ts';
import type { StoreAdmin } from '../common/storeApi.ts';
import type { RunQueries } from './runQueries.ts';
import type { SqliteIngest } from './sqliteIngest.ts';
import { allStallRows, insertStallRows } from './sqliteMoves.ts';

export class SqliteAdmin implements StoreAdmin {
  constructor(
    private readonly db: Database.Database,
    private readonly runs: RunQueries,
    private readonly ingest: SqliteIngest,
  ) {}

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
      this.ingest.forget(r.id);
      ids.push(r.id);
    }
    return ids;
  }

  async allRunIds(): Promise<string[]> {
    return this.runs.allIds();
  }
  async writeEvents(runId: string, events: readonly StoredEvent[]): Promise<void> {
    this.runs.insertEvents(runId, events);
  }
  async stallRows(runId: string): Promise<StallRow[]> {
    return allStallRows(this.db, runId);
  }
  async writeStallRows(runId: string, rows: readonly StallRow[]): Promise<void> {
    insertStallRows(this.db, runId, rows);
  }
}
