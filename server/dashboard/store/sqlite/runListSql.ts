/**
 * The SQL of the runs list (`GET /api/runs`, the Compare picker) and the board's run filter on SQLite, built in
 * one place so the store runs it and a test explains it (test/server/dashboard/store/runList.test.ts). Every
 * filter is answered from an index at a year's history (20,000 runs): a metadata pair through
 * `run_metadata_kv` (a set of rowids, not a probe per run), a text search through the `runs_text` trigram index
 * (migration 9), the page in the `runs_happened` index's order.
 */
import type { RunFilter } from '../common/records.ts';
import { listColumns } from '../common/listColumns.ts';

/** When a run happened: its start, or an import's file date (stored as its start); else when it was added. */
export const HAPPENED = 'COALESCE(r.started_at_ms, r.created_at_ms)';

/**
 * Stall reports that are evidence (shared/stalls/stallReport.ts `isStallEvidence`): rows stored before the
 * dashboard left them out include py-spy captures (worker -1) that read no stack, which are not.
 */
export const EVIDENCE = `NOT (s.worker_id = -1 AND json_extract(s.report_json, '$.stackError') IS NOT NULL)`;

export const LIST_COLUMNS = listColumns(EVIDENCE);

/** The trigram index matches substrings of 3 characters or more; a shorter text is looked for row by row. */
const TRIGRAM = 3;

/** SQL conditions (on runs `r`) for metadata pairs and a time window; their values are pushed to `args`. */
export function metadataAndTime(f: Pick<RunFilter, 'metadata' | 'since' | 'until'>, args: unknown[]): string[] {
  const where: string[] = [];
  for (const [k, v] of f.metadata ?? []) {
    // A set of runs from the (key, value) index, by rowid: a correlated EXISTS probed every run's metadata (20,000
    // probes), and a set of ids is tested by reading each run's row, where the happened index holds the rowid.
    where.push(
      'r.rowid IN (SELECT x.rowid FROM run_metadata m JOIN runs x ON x.id = m.run_id WHERE m.key = ? AND m.value = ?)',
    );
    args.push(k, v);
  }
  if (f.since !== undefined) {
    where.push(`${HAPPENED} >= ?`);
    args.push(f.since);
  }
  if (f.until !== undefined) {
    where.push(`${HAPPENED} < ?`);
    args.push(f.until);
  }
  return where;
}

/**
 * The free-text condition: a substring of the id, label, model, target or metadata, as LIKE finds it (ASCII case
 * folded). The trigram index picks the candidates and its own copy of the text (the columns joined by newlines)
 * keeps those LIKE finds: a text with no newline is in the joined text exactly when it is in one of the columns.
 * A shorter text (no trigram) or one with a newline is looked for column by column in every run.
 */
function textCondition(text: string, args: unknown[]): string {
  const like = `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
  if ([...text].length >= TRIGRAM && !text.includes('\n')) {
    // One FTS5 phrase: the text as it is, its quotes doubled.
    args.push(`"${text.replace(/"/g, '""')}"`, like);
    return `r.id IN (SELECT t.id FROM runs_text t WHERE runs_text MATCH ? AND t.text LIKE ? ESCAPE '\\')`;
  }
  const cols = ['r.id', 'r.label', 'r.model', 'r.target', 'r.metadata_json'];
  args.push(...cols.map(() => like));
  return `(${cols.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`;
}

/**
 * From how many matching runs the page walks the runs newest first (the happened index) and stops at its end,
 * rather than sorting every match: a text most runs hold (`nightly-1`, 5,481 of 20,000) took 65 ms to sort and 28 ms
 * to walk; a metadata pair of 659 runs 14 ms and 11 ms. Below it the matches are few and sorting them is cheaper than
 * the walk (a text 3 runs hold: 1 ms sorted, 55 ms walked).
 */
export const WALK_FROM = 500;

/**
 * The list's count and page queries for a filter, with their arguments (the page's: limit and offset added).
 * `page(total)` picks the page's plan from the count's answer.
 */
export function listSql(f: RunFilter): {
  count: string;
  page: (total: number) => string;
  args: unknown[];
  pageArgs: unknown[];
} {
  const where: string[] = [];
  const args: unknown[] = [];
  if (f.verdict) {
    where.push('r.verdict = ?');
    args.push(f.verdict);
  }
  if (f.status) {
    where.push('r.status = ?');
    args.push(f.status);
  }
  if (f.source) {
    where.push('r.source = ?');
    args.push(f.source);
  }
  if (f.text) where.push(textCondition(f.text, args));
  where.push(...metadataAndTime(f, args));
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  return {
    count: `SELECT COUNT(*) AS n FROM runs r ${w}`,
    // Newest first by when the run happened (an import by its file's date, not by when it was imported).
    // Ties (the runs of one JSON-lines import share their creation time) in insertion order = their order in the file.
    // The page's runs are chosen first and only they are read whole (CROSS JOIN: in that order): selected with
    // their columns, every run that matched had its stall counts computed and its row carried through the sort
    // (0.2 s for 659 of 20,000).
    page: (total) => `SELECT ${LIST_COLUMNS} FROM (SELECT r.rowid AS k FROM runs r
      ${total >= WALK_FROM ? 'INDEXED BY runs_happened' : ''} ${w} ORDER BY ${HAPPENED} DESC, r.rowid
      LIMIT ? OFFSET ?) p CROSS JOIN runs r ON r.rowid = p.k ORDER BY ${HAPPENED} DESC, r.rowid`,
    args,
    pageArgs: [...args, f.limit, f.offset],
  };
}
