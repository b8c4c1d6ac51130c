/**
 * What the stall board reads (docs/design.md#stall-board): the newest runs
 * matching a filter, each with its stall evidence already fingerprinted —
 * its stall reports (fingerprints stored beside them; one stored before they
 * were is fingerprinted here, on read) and its first structural timeout.
 */
import type Database from 'better-sqlite3';
import type { BoardRun } from '../../../../shared/stalls/stallBoard.ts';
import { boardFromRows, type BoardRunRow, type BoardStallRow } from '../common/boardRows.ts';
import type { BoardFilter } from '../common/records.ts';
import { HAPPENED, metadataAndTime } from './runListSql.ts';
import { REPORT_IS_EVIDENCE } from '../common/boardDetails.ts';

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
       FROM stall_reports s WHERE ${REPORT_IS_EVIDENCE} AND s.run_id IN (SELECT r.id ${newest}) ORDER BY s.run_id, s.seq`,
    )
    .all(...args, f.maxRuns) as BoardStallRow[];
  return { runs: boardFromRows(rows, stalls), truncated };
}
