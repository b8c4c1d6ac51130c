/**
 * The SQLite store's reads and one-off writes of runs (the batched live
 * writes are in writer.ts), synchronous; rows become reply shapes through
 * the mappers both stores share (common/runRows.ts).
 */
import type Database from 'better-sqlite3';
import type { RunListItem, RequestRow, StallEntry } from '../../../../shared/protocol/apiSchemas.ts';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import type { StallFingerprint } from '../../../../shared/stalls/fingerprint.ts';
import type { NewRun, RowSlice, RunFilter, RunUpdate, StoredEvent, StoredRunRow } from '../common/records.ts';
import {
  RUN_INSERT_COLUMNS,
  RUN_UPDATE_COLUMNS,
  RUN_UPDATE_JSON,
  runInsertValues,
  toListItem,
  toStoredRun,
  type RunRow,
} from '../common/runRows.ts';
import { eventsWithNewNames } from '../common/legacyReads.ts';
import { EVIDENCE, LIST_COLUMNS, listSql } from './runListSql.ts';

const parse = <T>(s: string | null | undefined): T | null => (s ? (JSON.parse(s) as T) : null);

export class RunQueries {
  constructor(private readonly db: Database.Database) {}

  insertRun(n: NewRun): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO runs (${RUN_INSERT_COLUMNS}) VALUES (${RUN_INSERT_COLUMNS.split(',')
            .map(() => '?')
            .join(',')})`,
        )
        .run(...runInsertValues(n));
      const meta = this.db.prepare('INSERT INTO run_metadata (run_id, key, value) VALUES (?,?,?)');
      for (const [k, v] of Object.entries(n.metadata)) meta.run(n.id, k, v);
    })();
  }

  exists(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM runs WHERE id = ?').get(id) !== undefined;
  }

  /** Sets the given columns (names from RUN_UPDATE_COLUMNS, never user input). */
  update(id: string, f: RunUpdate): void {
    const sets: string[] = [];
    const vals: unknown[] = [];
    for (const [k, v] of Object.entries(f)) {
      const col = RUN_UPDATE_COLUMNS[k as keyof RunUpdate];
      if (v === undefined || !col) continue;
      sets.push(`${col} = ?`);
      vals.push(RUN_UPDATE_JSON.has(k) ? JSON.stringify(v) : v);
    }
    if (f.result !== undefined) {
      // A result given whole replaces one stored in parts.
      sets.push('result_parts = NULL');
      this.db.prepare('DELETE FROM run_results WHERE run_id = ?').run(id);
    }
    if (sets.length) this.db.prepare(`UPDATE runs SET ${sets.join(', ')} WHERE id = ?`).run(...vals, id);
  }

  /**
   * Stores one part of a serialized result (parts from `resultParts`, numbered from 0). The result counts only
   * once `update(id, { resultParts })` says how many there are.
   */
  writeResultPart(id: string, part: number, text: string): void {
    this.db.prepare('INSERT OR REPLACE INTO run_results (run_id, part, text) VALUES (?,?,?)').run(id, part, text);
  }

  list(f: RunFilter): { runs: RunListItem[]; total: number } {
    const q = listSql(f);
    const total = (this.db.prepare(q.count).get(...q.args) as { n: number }).n;
    const rows = this.db.prepare(q.page(total)).all(...q.pageArgs) as RunRow[];
    return { runs: rows.map(toListItem), total };
  }

  /** The full row for GET /api/runs/:id, or null. */
  get(id: string): StoredRunRow | null {
    const r = this.db
      .prepare(
        `SELECT ${LIST_COLUMNS}, r.spec_json, r.config_json, r.import_json, r.error, r.first_timeout_json,
          r.server_identity_json, r.dropped_events, r.dropped_error FROM runs r WHERE r.id = ?`,
      )
      .get(id) as RunRow | undefined;
    return r ? toStoredRun(r) : null;
  }

  /** The stored vLLM result object: whole in runs.result_json, or joined from all its parts; null if neither. */
  result(id: string): Record<string, unknown> | null {
    const r = this.db.prepare('SELECT result_json, result_parts FROM runs WHERE id = ?').get(id) as
      { result_json: string | null; result_parts: number | null } | undefined;
    if (r?.result_json) return parse(r.result_json);
    if (!r?.result_parts) return null;
    const parts = this.db
      .prepare('SELECT text FROM run_results WHERE run_id = ? ORDER BY part')
      .pluck()
      .all(id) as string[];
    return parts.length === r.result_parts ? parse(parts.join('')) : null;
  }

  stallReports(id: string): StallEntry[] {
    const rows = this.db
      .prepare(
        `SELECT seq, report_json, recovered_json, fingerprint_json FROM stall_reports s WHERE run_id = ? AND ${EVIDENCE} ORDER BY seq`,
      )
      .all(id) as {
      seq: number;
      report_json: string;
      recovered_json: string | null;
      fingerprint_json: string | null;
    }[];
    return rows.map((r) => ({
      seq: r.seq,
      report: JSON.parse(r.report_json) as StallEntry['report'],
      recovered: parse(r.recovered_json),
      ...(r.fingerprint_json ? { fingerprint: JSON.parse(r.fingerprint_json) as StallFingerprint } : {}),
    }));
  }

  /** Serialized `SeqEvent`s with seq > after, in order. */
  eventsAfter(id: string, after: number, limit: number): { seq: number; json: string }[] {
    return eventsWithNewNames(
      this.db
        .prepare('SELECT seq, json FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?')
        .all(id, after, limit) as { seq: number; json: string }[],
    );
  }

  insertRequests(runId: string, rows: RequestRow[]): void {
    const st = this.db.prepare('INSERT OR REPLACE INTO requests (run_id, idx, row_json, status) VALUES (?,?,?,?)');
    this.db.transaction(() => {
      for (const r of rows) st.run(runId, r.index, JSON.stringify(r), r.status);
    })();
  }

  /** The run's stored last seq (0 for a run with no events or no row). */
  lastSeq(id: string): number {
    const r = this.db.prepare('SELECT last_seq FROM runs WHERE id = ?').pluck().get(id) as number | undefined;
    return r ?? 0;
  }

  /** One slice of serialized request rows, in one transaction. */
  writeRowSlice(runId: string, rows: RowSlice): void {
    this.rowSlice ??= this.db.transaction((id: string, r: RowSlice) => {
      const st = (this.upsertRow ??= this.db.prepare(
        'INSERT OR REPLACE INTO requests (run_id, idx, row_json, status) VALUES (?,?,?,?)',
      ));
      for (let k = 0; k < r.index.length; k++) st.run(id, r.index[k], r.json[k], r.status[k]);
    });
    this.rowSlice(runId, rows);
  }
  private rowSlice: ((runId: string, rows: RowSlice) => void) | null = null;
  private upsertRow: Database.Statement | null = null;

  /** Events numbered elsewhere, kept with their seq (duplicates ignored); last_seq follows. */
  insertEvents(runId: string, events: readonly StoredEvent[]): void {
    const st = this.db.prepare('INSERT OR IGNORE INTO events (run_id, seq, json) VALUES (?,?,?)');
    this.db.transaction(() => {
      for (const e of events) st.run(runId, e.seq, e.json);
      if (events.length)
        this.db
          .prepare('UPDATE runs SET last_seq = MAX(last_seq, ?) WHERE id = ?')
          .run(events[events.length - 1].seq, runId);
    })();
  }

  /** Every run id, in insertion order. */
  allIds(): string[] {
    return this.db.prepare('SELECT id FROM runs ORDER BY rowid').pluck().all() as string[];
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  /** Runs left `running` by a previous process (crash, SIGKILL). */
  runningIds(): { id: string; lastSeq: number; state: RunState | null }[] {
    const rows = this.db.prepare(`SELECT id, last_seq, state_json FROM runs WHERE status = 'running'`).all() as {
      id: string;
      last_seq: number;
      state_json: string | null;
    }[];
    return rows.map((r) => ({ id: r.id, lastSeq: r.last_seq, state: parse<RunState>(r.state_json) }));
  }
}
