/**
 * The stall evidence of rows stored before fingerprints were (migration 3):
 * each stall report's fingerprint computed from its stored report, and each
 * run's first structural timeout found among its stored request rows (the
 * earliest to end timed out). Imports are left out: an old nightly's file has
 * no stall evidence, only its outcome (docs/design.md#stall-board).
 */
import type Database from 'better-sqlite3';
import { fingerprintColumns } from '../common/effects.ts';
import type { RequestRow } from '../../../../shared/protocol/apiSchemas.ts';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import type { StallReport } from '../../../../shared/stalls/stallReport.ts';
import { blockedPhase, firstTimeout, type FirstTimeout } from '../../../../shared/stalls/stallEvidence.ts';

/**
 * The first of a run's timed-out rows to end (by its end time, then index), with the phase the breaker's
 * cause named when the breaker tripped on it (the only phase a stored run keeps), else `unknown`.
 */
export function firstTimeoutOfRows(rows: readonly RequestRow[], state: RunState | null): FirstTimeout | null {
  let first: RequestRow | null = null;
  for (const r of rows) {
    if (r.status !== 'timed_out') continue;
    const end = r.endT ?? Infinity;
    const best = first?.endT ?? Infinity;
    if (first === null || end < best || (end === best && r.index < first.index)) first = r;
  }
  if (!first) return null;
  const cause = state?.breaker.cause;
  const phase = cause && cause.requestIndex === first.index ? blockedPhase(cause.lastPhase) : 'unknown';
  return firstTimeout(first.index, first.requestId, first.timeoutKind ?? 'total', first.endT, phase);
}

export function backfillStallEvidence(db: Database.Database): void {
  const keys = db.prepare('SELECT run_id, worker_id, op_id FROM stall_reports WHERE fingerprint IS NULL').all() as {
    run_id: string;
    worker_id: number;
    op_id: number;
  }[];
  const read = db.prepare('SELECT report_json FROM stall_reports WHERE run_id = ? AND worker_id = ? AND op_id = ?');
  const write = db.prepare(
    'UPDATE stall_reports SET fingerprint = ?, fingerprint_json = ? WHERE run_id = ? AND worker_id = ? AND op_id = ?',
  );
  for (const k of keys) {
    const json = read.pluck().get(k.run_id, k.worker_id, k.op_id) as string;
    const fp = fingerprintColumns(JSON.parse(json) as StallReport);
    write.run(fp.fingerprint, fp.json, k.run_id, k.worker_id, k.op_id);
  }
  const runs = db
    .prepare(
      `SELECT r.id, r.state_json FROM runs r WHERE r.source != 'import'
         AND EXISTS (SELECT 1 FROM requests q WHERE q.run_id = r.id AND q.status = 'timed_out')`,
    )
    .all() as { id: string; state_json: string | null }[];
  const rows = db.prepare(`SELECT row_json FROM requests WHERE run_id = ? AND status = 'timed_out'`).pluck();
  const setFirst = db.prepare('UPDATE runs SET first_timeout_json = ? WHERE id = ?');
  for (const r of runs) {
    const timedOut = (rows.all(r.id) as string[]).map((j) => JSON.parse(j) as RequestRow);
    const first = firstTimeoutOfRows(timedOut, r.state_json ? (JSON.parse(r.state_json) as RunState) : null);
    if (first) setFirst.run(JSON.stringify(first), r.id);
  }
}
