/**
 * The PostgreSQL store's reads: the same rules as the SQLite queries
 * (sqlite/runQueries.ts, sqlite/boardQueries.ts) in PostgreSQL's SQL — numbered parameters,
 * jsonb for the one JSON test, the run's insertion order in `ord` — turned
 * into the same reply shapes by the same row mappers.
 */
import type { RunListItem, StallEntry } from '../../../../shared/protocol/apiSchemas.ts';
import type { StallFingerprint } from '../../../../shared/stalls/fingerprint.ts';
import { boardFromRows, type BoardRunRow, type BoardStallRow } from '../common/boardRows.ts';
import { toListItem, toStoredRun, type RunRow } from '../common/runRows.ts';
import { eventsWithNewNames } from '../common/legacyReads.ts';
import type { BoardFilter, RunFilter, StallRow, StoredEvent, StoredRunRow } from '../common/records.ts';
import type { BoardRun } from '../../../../shared/stalls/stallBoard.ts';
import type { PgRunsOnly, RunsTable } from '../common/schema.ts';
import type { Query } from './pgQuery.ts';
import { REPORT_IS_EVIDENCE } from '../common/boardDetails.ts';
import { EVIDENCE, HAPPENED, LIST_COLUMNS, listSql, metadataAndTime } from './pgRunList.ts';

const parse = <T>(s: string | null | undefined): T | null => (s ? (JSON.parse(s) as T) : null);

export async function listRuns(q: Query, f: RunFilter): Promise<{ runs: RunListItem[]; total: number }> {
  const sql = listSql(f);
  const [{ n }] = await q<{ n: number }>(sql.count, sql.args);
  const rows = await q<RunRow>(sql.page, sql.pageArgs);
  return { runs: rows.map(toListItem), total: n };
}

export async function getRun(q: Query, id: string): Promise<StoredRunRow | null> {
  const [r] = await q<RunRow>(
    `SELECT ${LIST_COLUMNS}, r.spec_json, r.config_json, r.import_json, r.error, r.first_timeout_json,
      r.server_identity_json, r.dropped_events, r.dropped_error FROM runs r WHERE r.id = $1`,
    [id],
  );
  return r ? toStoredRun(r) : null;
}

export async function runResult(q: Query, id: string): Promise<Record<string, unknown> | null> {
  const [r] = await q<{ result_json: string | null; result_parts: number | null }>(
    'SELECT result_json, result_parts FROM runs WHERE id = $1',
    [id],
  );
  if (r?.result_json) return parse(r.result_json);
  if (!r?.result_parts) return null;
  const parts = await q<{ text: string }>('SELECT text FROM run_results WHERE run_id = $1 ORDER BY part', [id]);
  return parts.length === r.result_parts ? parse(parts.map((x) => x.text).join('')) : null;
}

export async function stallReports(q: Query, id: string): Promise<StallEntry[]> {
  const rows = await q<{
    seq: number;
    report_json: string;
    recovered_json: string | null;
    fingerprint_json: string | null;
  }>(
    `SELECT seq, report_json, recovered_json, fingerprint_json FROM stall_reports s
     WHERE run_id = $1 AND ${EVIDENCE} ORDER BY seq`,
    [id],
  );
  return rows.map((r) => ({
    seq: r.seq,
    report: JSON.parse(r.report_json) as StallEntry['report'],
    recovered: parse(r.recovered_json),
    ...(r.fingerprint_json ? { fingerprint: JSON.parse(r.fingerprint_json) as StallFingerprint } : {}),
  }));
}

export function eventsAfter(q: Query, id: string, after: number, limit: number): Promise<StoredEvent[]> {
  return q<StoredEvent>('SELECT seq, json FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
    id,
    after,
    limit,
  ]).then(eventsWithNewNames);
}

export async function boardRuns(q: Query, f: BoardFilter): Promise<{ runs: BoardRun[]; truncated: boolean }> {
  const args: unknown[] = [];
  const where = metadataAndTime(f, args);
  const newest = `FROM runs r ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${HAPPENED} DESC, r.ord`;
  const rows = await q<BoardRunRow>(
    `SELECT r.id, ${HAPPENED} AS at_ms, r.verdict, r.status, r.label, r.metadata_json, r.first_timeout_json
     ${newest} LIMIT $${args.length + 1}`,
    [...args, f.maxRuns + 1],
  );
  const truncated = rows.length > f.maxRuns;
  if (truncated) rows.pop();
  const stalls = await q<BoardStallRow>(
    `SELECT s.run_id, s.worker_id, s.op_id, s.fingerprint_json,
       CASE WHEN s.fingerprint_json IS NULL THEN s.report_json END AS report_json
     FROM stall_reports s WHERE ${REPORT_IS_EVIDENCE} AND s.run_id IN (SELECT r.id ${newest} LIMIT $${args.length + 1})
     ORDER BY s.run_id, s.seq`,
    [...args, f.maxRuns],
  );
  return { runs: boardFromRows(rows, stalls), truncated };
}

export function stallRows(q: Query, runId: string): Promise<StallRow[]> {
  return q<StallRow>(
    `SELECT worker_id AS "workerId", op_id AS "opId", seq, phase, report_json AS "reportJson",
      recovered_json AS "recoveredJson", fingerprint, fingerprint_json AS "fingerprintJson"
     FROM stall_reports WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
}

type RunOwner = Pick<RunsTable, 'id'> & Pick<PgRunsOnly, 'owner'>;

export async function runningByOwner(q: Query): Promise<RunOwner[]> {
  return q<RunOwner>(`SELECT id, owner FROM runs WHERE status = 'running'`);
}
