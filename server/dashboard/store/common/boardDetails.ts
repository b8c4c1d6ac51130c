/**
 * The runs the database's board names (docs/design.md#stall-board) — its groups' occurrences and controls, its
 * strips and their prior controls, never the rest of the window — read by id as the board's runs: when, the
 * verdict, the `ci_*` metadata it shows, and the evidence its fingerprints came from (stall reports in the order
 * they were stored, then the first timeout). A report's keys and fingerprint come from an index (SQLite migration
 * 13): its row, with the whole report in it, is not read; each fingerprint's JSON is read and parsed once, from one
 * report by its key.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { BoardRun, StallEvidence } from '../../../../shared/stalls/stallBoard.ts';
import type { StallFingerprint } from '../../../../shared/stalls/fingerprint.ts';
import {
  keyRef,
  reportFingerprint,
  timeoutEvidence,
  type FirstTimeout,
} from '../../../../shared/stalls/stallEvidence.ts';
import type { StallReport } from '../../../../shared/stalls/stallReport.ts';
import type { StallscopeDb } from './schema.ts';

/** The metadata the board shows of a run (node, build, its link, commit). */
const SHOWN = ['ci_node', 'ci_build', 'ci_build_url', 'ci_commit'];
/** Fingerprints' first reports per statement: each is an OR of three bound parameters. */
const CHUNK = 500;

/**
 * A table of `ids` (one column, `id`) from one bound parameter, as each store's SQL writes it: a statement per kind
 * for all the board's ids (~1,800 at its default), with no bound on how many. An `IN (…)` list of 500 parameters
 * per part cost PostgreSQL a sequential scan of the stall reports per part (~25 ms each at a year): its planner
 * priced the list as a filter, where a table of ids is joined.
 */
export type IdTable = (ids: readonly string[]) => RawBuilder<unknown>;
export const PG_IDS: IdTable = (ids) => sql`SELECT unnest(CAST(${[...ids]} AS text[])) AS id`;
export const SQLITE_IDS: IdTable = (ids) => sql`SELECT value AS id FROM json_each(${JSON.stringify(ids)})`;

/** `read` over `items` in parts of CHUNK, the rows of all parts. */
async function inParts<I, T>(items: readonly I[], read: (part: readonly I[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(...(await read(items.slice(i, i + CHUNK))));
  return out;
}

interface RunRow {
  id: string;
  at_ms: number | string;
  verdict: string | null;
  status: string;
  label: string | null;
  first_timeout_json: string | null;
}
interface ReportRow {
  run_id: string;
  worker_id: number | string;
  op_id: number | string;
  fingerprint: string;
}

/**
 * Which stall report of `stall_reports s` is stall evidence: one whose fingerprint the stall facts hold as a stack
 * (a py-spy capture that failed is not: the facts leave it out). One rule for the board's both reads, this one and
 * the JavaScript fold's (sqlite/boardQueries.ts, pg/pgReads.ts), and /metrics, which counts the facts.
 */
export const REPORT_IS_EVIDENCE = `EXISTS (SELECT 1 FROM stall_facts f
  WHERE f.run_id = s.run_id AND f.kind = 'stack' AND f.fingerprint = s.fingerprint)`;

/** The stall evidence reports of the runs `these` (a table of ids), by key, in the order they were stored. */
export const reportKeys = (these: RawBuilder<unknown>) => sql<ReportRow>`SELECT s.run_id, s.worker_id, s.op_id,
    s.fingerprint FROM stall_reports s WHERE s.run_id IN (${these}) AND s.fingerprint IS NOT NULL
      AND ${sql.raw(REPORT_IS_EVIDENCE)}
    ORDER BY s.run_id, s.seq`;

/** The runs `ids` as the board reads them; `table` is the store's SQL for a table of ids. */
export async function boardRunsById(
  db: Kysely<StallscopeDb>,
  ids: readonly string[],
  table: IdTable,
): Promise<Map<string, BoardRun>> {
  if (ids.length === 0) return new Map();
  const these = table(ids);
  const { rows: runs } = await sql<RunRow>`SELECT r.id, COALESCE(r.started_at_ms, r.created_at_ms) AS at_ms,
    r.verdict, r.status, r.label, r.first_timeout_json FROM runs r WHERE r.id IN (${these})`.execute(db);
  const { rows: metadata } = await sql<{ run_id: string; key: string; value: string }>`SELECT run_id, key, value
    FROM run_metadata WHERE key IN (${sql.join(SHOWN)}) AND run_id IN (${these})`.execute(db);
  const { rows: reports } = await reportKeys(these).execute(db);
  const prints = await fingerprints(db, reports);
  const evidence = new Map<string, StallEvidence[]>();
  for (const s of reports) {
    const fp = prints.get(s.fingerprint)!;
    const workerId = Number(s.worker_id);
    const list = evidence.get(s.run_id) ?? [];
    list.push({
      kind: workerId === -1 ? 'py-spy' : 'watchdog',
      ref: keyRef({ workerId, opId: Number(s.op_id) }),
      ...fp,
    });
    evidence.set(s.run_id, list);
  }
  const meta = new Map<string, Record<string, string>>();
  for (const m of metadata) {
    const rec = meta.get(m.run_id) ?? {};
    rec[m.key] = m.value;
    meta.set(m.run_id, rec);
  }
  const out = new Map<string, BoardRun>();
  for (const r of runs) {
    const ev = evidence.get(r.id) ?? [];
    if (r.first_timeout_json) ev.push(timeoutEvidence(JSON.parse(r.first_timeout_json) as FirstTimeout));
    out.set(r.id, {
      id: r.id,
      atMs: Number(r.at_ms),
      verdict: r.verdict,
      status: r.status,
      label: r.label,
      metadata: meta.get(r.id) ?? {},
      evidence: ev,
    });
  }
  return out;
}

/** Each fingerprint of `reports`: its phase, frames and label, read from the first report of it by its key. */
async function fingerprints(
  db: Kysely<StallscopeDb>,
  reports: readonly ReportRow[],
): Promise<Map<string, StallFingerprint>> {
  const first = new Map<string, ReportRow>();
  for (const r of reports) if (!first.has(r.fingerprint)) first.set(r.fingerprint, r);
  const rows = await inParts([...first.values()], async (part) => {
    const keys = part.map(
      (r) => sql`(s.run_id = ${r.run_id} AND s.worker_id = ${r.worker_id} AND s.op_id = ${r.op_id})`,
    );
    return (
      await sql<{ fingerprint: string; fingerprint_json: string | null; report_json: string | null }>`
        SELECT s.fingerprint, s.fingerprint_json, CASE WHEN s.fingerprint_json IS NULL THEN s.report_json END AS report_json
        FROM stall_reports s WHERE ${sql.join(keys, sql` OR `)}`.execute(db)
    ).rows;
  });
  const out = new Map<string, StallFingerprint>();
  for (const r of rows)
    out.set(
      r.fingerprint,
      r.fingerprint_json
        ? (JSON.parse(r.fingerprint_json) as StallFingerprint)
        : reportFingerprint(JSON.parse(r.report_json!) as StallReport),
    );
  return out;
}
