/**
 * The SQL of the runs list (`GET /api/runs`, the Compare picker) and the board's run filter on PostgreSQL — the
 * rules of sqlite/runListSql.ts in PostgreSQL's SQL — built in one place so the store runs it and a test explains
 * it (test/server/dashboard/store/runList.test.ts). At a year's history (20,000 runs) a metadata
 * pair is read through `run_metadata_kv`, a text search through the `runs_text_trgm` trigram index (migration 7;
 * pg_trgm), the page in the `runs_happened` index's order.
 */
import type { RunFilter } from '../common/records.ts';
import { listColumns } from '../common/listColumns.ts';

export const HAPPENED = 'COALESCE(r.started_at_ms, r.created_at_ms)';
export const EVIDENCE = `NOT (s.worker_id = -1 AND (s.report_json::jsonb ->> 'stackError') IS NOT NULL)`;
export const LIST_COLUMNS = listColumns(EVIDENCE);

/**
 * What the text search looks in, one text a run: the expression `runs_text_trgm` indexes (pg/pgMigrations.ts,
 * migration 7), written here exactly as there, or the planner cannot use the index.
 */
export const RUN_TEXT = `(r.id || E'\\n' || COALESCE(r.label, '') || E'\\n' || COALESCE(r.model, '') || E'\\n' ||
  COALESCE(r.target, '') || E'\\n' || r.metadata_json)`;

/** Conditions for metadata pairs and a time window, their values pushed to `args` ($n numbered from there). */
export function metadataAndTime(f: Pick<RunFilter, 'metadata' | 'since' | 'until'>, args: unknown[]): string[] {
  const where: string[] = [];
  const p = (v: unknown) => `$${args.push(v)}`;
  for (const [k, v] of f.metadata ?? [])
    where.push(`EXISTS (SELECT 1 FROM run_metadata m WHERE m.run_id = r.id AND m.key = ${p(k)} AND m.value = ${p(v)})`);
  if (f.since !== undefined) where.push(`${HAPPENED} >= ${p(f.since)}`);
  if (f.until !== undefined) where.push(`${HAPPENED} < ${p(f.until)}`);
  return where;
}

/** The list's count and page queries for a filter, with their arguments (the page's: limit and offset added). */
export function listSql(f: RunFilter): { count: string; page: string; args: unknown[]; pageArgs: unknown[] } {
  const args: unknown[] = [];
  const p = (v: unknown) => `$${args.push(v)}`;
  const where: string[] = [];
  if (f.verdict) where.push(`r.verdict = ${p(f.verdict)}`);
  if (f.status) where.push(`r.status = ${p(f.status)}`);
  if (f.source) where.push(`r.source = ${p(f.source)}`);
  if (f.text) {
    const like = p(`%${f.text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    // The columns joined hold every substring any one of them holds: the trigram index finds the candidates
    // (a text of fewer than 3 characters has no trigram: then every run is one); each column's LIKE keeps the runs.
    where.push(`${RUN_TEXT} LIKE ${like} ESCAPE '\\'`);
    const cols = ['r.id', 'r.label', 'r.model', 'r.target', 'r.metadata_json'];
    where.push(`(${cols.map((c) => `${c} LIKE ${like} ESCAPE '\\'`).join(' OR ')})`);
  }
  where.push(...metadataAndTime(f, args));
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const count = `SELECT COUNT(*) AS n FROM runs r ${w}`;
  // The page's runs are chosen first and only they are read whole, as on SQLite (sqlite/runListSql.ts).
  const page = `SELECT ${LIST_COLUMNS} FROM (SELECT r.id AS k, ${HAPPENED} AS h, r.ord AS o FROM runs r ${w}
    ORDER BY ${HAPPENED} DESC, r.ord LIMIT $${args.length + 1} OFFSET $${args.length + 2}) p
    JOIN runs r ON r.id = p.k ORDER BY p.h DESC, p.o`;
  return { count, page, args, pageArgs: [...args, f.limit, f.offset] };
}
