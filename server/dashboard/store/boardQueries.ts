/**
 * What the stall board reads (docs/design.md#stall-board): the newest runs
 * matching a filter, each with its stall evidence already fingerprinted —
 * its stall reports (fingerprints stored beside them; one stored before they
 * were is fingerprinted here, on read) and its first structural timeout.
 */
import type Database from 'better-sqlite3';
import type { BoardRun, StallEvidence } from '../../../shared/stalls/stallBoard.ts';
import type { StallFingerprint } from '../../../shared/stalls/fingerprint.ts';
import type { StallReport } from '../../../shared/stalls/stallReport.ts';
import { keyRef, reportFingerprint, timeoutEvidence, type FirstTimeout } from '../../../shared/stalls/stallEvidence.ts';
import { HAPPENED, metadataAndTime } from './runQueries.ts';
import type { BoardFilter } from './storeApi.ts';

export interface BoardRunRow {
  id: string;
  at_ms: number;
  verdict: string | null;
  status: string;
  label: string | null;
  metadata_json: string;
  first_timeout_json: string | null;
}

export interface BoardStallRow {
  run_id: string;
  worker_id: number;
  op_id: number;
  fingerprint_json: string | null;
  report_json: string | null;
}

export function boardRuns(db: Database.Database, f: BoardFilter): { runs: BoardRun[]; truncated: boolean } {
  const args: unknown[] = [];
  const where = metadataAndTime(f, args);
  const newest = `FROM runs r ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${HAPPENED} DESC, r.rowid LIMIT ?`;
  const rows = db
    .prepare(
      `SELECT r.id, ${HAPPENED} AS at_ms, r.verdict, r.status, r.label, r.metadata_json, r.first_timeout_json ${newest}`,
    )
    .all(...args, f.maxRuns + 1) as BoardRunRow[];
  const truncated = rows.length > f.maxRuns;
  if (truncated) rows.pop();
  // The report itself is read only when its fingerprint was never stored.
  const stalls = db
    .prepare(
      `SELECT s.run_id, s.worker_id, s.op_id, s.fingerprint_json,
         CASE WHEN s.fingerprint_json IS NULL THEN s.report_json END AS report_json
       FROM stall_reports s WHERE s.run_id IN (SELECT r.id ${newest}) ORDER BY s.run_id, s.seq`,
    )
    .all(...args, f.maxRuns) as BoardStallRow[];
  return { runs: boardFromRows(rows, stalls), truncated };
}

/** The board's runs from their rows and their stall rows (both stores read the same columns). */
export function boardFromRows(rows: BoardRunRow[], stalls: BoardStallRow[]): BoardRun[] {
  const evidence = new Map<string, StallEvidence[]>();
  for (const s of stalls) {
    const fp: StallFingerprint = s.fingerprint_json
      ? (JSON.parse(s.fingerprint_json) as StallFingerprint)
      : reportFingerprint(JSON.parse(s.report_json!) as StallReport);
    const list = evidence.get(s.run_id) ?? [];
    list.push({
      kind: s.worker_id === -1 ? 'py-spy' : 'watchdog',
      ref: keyRef({ workerId: s.worker_id, opId: s.op_id }),
      ...fp,
    });
    evidence.set(s.run_id, list);
  }
  return rows.map((r): BoardRun => {
    const ev = evidence.get(r.id) ?? [];
    if (r.first_timeout_json) ev.push(timeoutEvidence(JSON.parse(r.first_timeout_json) as FirstTimeout));
    return {
      id: r.id,
      atMs: r.at_ms,
      verdict: r.verdict,
      status: r.status,
      label: r.label,
      metadata: JSON.parse(r.metadata_json) as Record<string, string>,
      evidence: ev,
    };
  });
}
