/**
 * Stall report rows read and written as stored, for `stallscope db export` /
 * `db import` (docs/design.md#team-dashboard): a run moves between stores
 * with its evidence exactly as it was recorded, fingerprints included.
 */
import type Database from 'better-sqlite3';
import type { StallRow } from '../common/records.ts';

export function allStallRows(db: Database.Database, runId: string): StallRow[] {
  return db
    .prepare(
      `SELECT worker_id AS workerId, op_id AS opId, seq, phase, report_json AS reportJson,
        recovered_json AS recoveredJson, fingerprint, fingerprint_json AS fingerprintJson
       FROM stall_reports WHERE run_id = ? ORDER BY seq`,
    )
    .all(runId) as StallRow[];
}

export function insertStallRows(db: Database.Database, runId: string, rows: readonly StallRow[]): void {
  const st = db.prepare(
    `INSERT OR IGNORE INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, recovered_json,
      fingerprint, fingerprint_json) VALUES (?,?,?,?,?,?,?,?,?)`,
  );
  db.transaction(() => {
    for (const r of rows)
      st.run(
        runId,
        r.workerId,
        r.opId,
        r.seq,
        r.phase,
        r.reportJson,
        r.recoveredJson,
        r.fingerprint,
        r.fingerprintJson,
      );
  })();
}
