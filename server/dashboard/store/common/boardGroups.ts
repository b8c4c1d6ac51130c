/**
 * The stall board's groups counted by the database (docs/design.md#stall-board), one Kysely query for both
 * stores: over the board's window (the newest `maxRuns` runs matching the filter), `stall_facts` grouped by scope
 * (ci_pipeline + ci_step; '' + '' is the runs without CI metadata) and fingerprint — occurrences, first and last
 * seen, nodes, the scope's runs — and each occurrence's nearest passing controls by window functions. The same
 * answer as shared/stalls/stallBoard.ts `groupStalls` on the same runs (test/server/dashboard/store/boardGroups.test.ts),
 * without reading every run of the window into JavaScript: only the groups' occurrences come back as rows.
 *
 * A window's runs are ordered by when they happened, then id (the JavaScript read breaks ties by insertion order:
 * the two differ only for runs at the same millisecond at the window's edge).
 */
import { sql, type RawBuilder } from 'kysely';
import type { BoardFilter } from './records.ts';

/** One group's counts and the occurrences they were counted from (oldest first). */
export interface GroupCounts {
  pipeline: string | null;
  step: string | null;
  fingerprint: string;
  occurrences: number;
  firstSeen: number;
  lastSeen: number;
  /** Runs of the scope in the window. */
  scopeRuns: number;
  /** Distinct nodes of the occurrences, by name. */
  nodes: string[];
  runs: string[];
  /** The nearest passing control on each side of each occurrence, oldest first. */
  controls: string[];
  /** The last passing control before the first occurrence (null: none). */
  lastPassing: string | null;
}

const HAPPENED = sql`COALESCE(r.started_at_ms, r.created_at_ms)`;

export function windowRuns(f: BoardFilter): RawBuilder<unknown> {
  const conds: RawBuilder<unknown>[] = [sql`1 = 1`];
  for (const [k, v] of f.metadata ?? [])
    conds.push(sql`r.id IN (SELECT m.run_id FROM run_metadata m WHERE m.key = ${k} AND m.value = ${v})`);
  if (f.since !== undefined) conds.push(sql`${HAPPENED} >= ${f.since}`);
  if (f.until !== undefined) conds.push(sql`${HAPPENED} < ${f.until}`);
  return sql`SELECT r.id, ${HAPPENED} AS at_ms, r.verdict FROM runs r WHERE ${sql.join(conds, sql` AND `)}
    ORDER BY ${HAPPENED} DESC, r.id LIMIT ${f.maxRuns}`;
}

/**
 * The window with each run's scope, node, whether it stalled and (a passing run without stall evidence) its control
 * time — from `run_labels` (one narrow row per run, kept by triggers: no metadata lookups per run); its
 * fingerprints (its stacks', else its timeouts'); and per run the scope's nearest control at or before it and after
 * it (the JavaScript rule: `controlsAround`), and the scope's size.
 */
export const boardCtes = (f: BoardFilter, fingerprint?: string) => sql`
  WITH w AS (${windowRuns(f)}),
  wr AS (
    SELECT w.id, w.at_ms, w.verdict, COALESCE(l.pipeline, '') AS pipeline, COALESCE(l.step, '') AS step,
      NULLIF(l.node, '') AS node, l.stalled,
      CASE WHEN w.verdict = 'passed' AND l.stalled = 0 THEN w.at_ms END AS ctl_at
    FROM w JOIN run_labels l ON l.run_id = w.id
  ),
  fp AS MATERIALIZED (
    SELECT DISTINCT s.run_id, s.fingerprint FROM stall_facts s JOIN w ON w.id = s.run_id
    -- the window's time span: the facts are read by their time index, not every fact probed by run
    WHERE s.at_ms BETWEEN (SELECT MIN(at_ms) FROM w) AND (SELECT MAX(at_ms) FROM w) AND (s.kind <> 'timeout'
      OR NOT EXISTS (SELECT 1 FROM stall_facts t WHERE t.run_id = s.run_id AND t.kind <> 'timeout'))
      ${fingerprint === undefined ? sql`` : sql`AND s.fingerprint = ${fingerprint}`}
  ),
  near AS MATERIALIZED (
    SELECT wr.*,
      MAX(ctl_at) OVER (PARTITION BY pipeline, step ORDER BY at_ms
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS before_at,
      MIN(ctl_at) OVER (PARTITION BY pipeline, step ORDER BY at_ms
        RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS after_at,
      COUNT(*) OVER (PARTITION BY pipeline, step) AS scope_runs,
      SUM(stalled) OVER (PARTITION BY pipeline, step) AS scope_stalled
    FROM wr
  )`;

export interface CountRow {
  pipeline: string;
  step: string;
  fingerprint: string;
  occurrences: number | string;
  first_seen: number | string;
  last_seen: number | string;
  scope_runs: number | string;
}

/** A group as a map key: its scope (stored as '' when unset) and fingerprint. */
export const groupKey = (r: { pipeline: string; step: string; fingerprint: string }) =>
  `${r.pipeline}\u0000${r.step}\u0000${r.fingerprint}`;

/** The GROUP BY over the CTEs: one row per scope and fingerprint. */
export const countsSelect = sql`
    SELECT n.pipeline, n.step, fp.fingerprint, COUNT(*) AS occurrences, MIN(n.at_ms) AS first_seen,
      MAX(n.at_ms) AS last_seen, MAX(n.scope_runs) AS scope_runs
    FROM fp JOIN near n ON n.id = fp.run_id GROUP BY n.pipeline, n.step, fp.fingerprint`;

/** The GROUP BY as a statement (exported for the EXPLAIN test). */
export const countsQuery = (f: BoardFilter) => sql<CountRow>`${boardCtes(f)} ${countsSelect}`;

/** Each group's occurrences over the CTEs, with the scope's nearest passing control on each side of each. */
export const occurrencesSelect = sql`
    SELECT n.pipeline, n.step, fp.fingerprint, n.id AS run_id, n.at_ms, n.node,
      cb.id AS before_id, cb.at_ms AS before_at, ca.id AS after_id, ca.at_ms AS after_at
    FROM fp JOIN near n ON n.id = fp.run_id
      LEFT JOIN near cb ON cb.pipeline = n.pipeline AND cb.step = n.step AND cb.ctl_at = n.before_at
      LEFT JOIN near ca ON ca.pipeline = n.pipeline AND ca.step = n.step AND ca.ctl_at = n.after_at`;

/** One occurrence of a group: its run, node and the scope's nearest passing control on each side. */
export interface OccurrenceRow {
  pipeline: string;
  step: string;
  fingerprint: string;
  run_id: string;
  at_ms: number | string;
  node: string | null;
  before_id: string | null;
  before_at: number | string | null;
  after_id: string | null;
  after_at: number | string | null;
}

/** Occurrence rows (oldest first) by group; two controls at the same millisecond both join: the first is kept. */
export function byGroup(rows: readonly OccurrenceRow[]): Map<string, OccurrenceRow[]> {
  const occurrences = new Map<string, OccurrenceRow[]>();
  for (const o of rows) {
    const list = occurrences.get(groupKey(o));
    if (!list) occurrences.set(groupKey(o), [o]);
    else if (list[list.length - 1].run_id !== o.run_id) list.push(o);
  }
  return occurrences;
}

/** A group's counts from its GROUP BY row and its occurrences. */
export function groupCounts(c: CountRow, rows: readonly OccurrenceRow[]): GroupCounts {
  const ctl = new Map<string, number>();
  for (const o of rows) {
    if (o.before_id !== null) ctl.set(o.before_id, Number(o.before_at));
    if (o.after_id !== null) ctl.set(o.after_id, Number(o.after_at));
  }
  const first = rows[0];
  const firstAt = Number(first?.at_ms);
  return {
    pipeline: c.pipeline || null,
    step: c.step || null,
    fingerprint: c.fingerprint,
    occurrences: Number(c.occurrences),
    firstSeen: Number(c.first_seen),
    lastSeen: Number(c.last_seen),
    scopeRuns: Number(c.scope_runs),
    nodes: [...new Set(rows.map((o) => o.node).filter((n): n is string => n !== null))],
    runs: rows.map((o) => o.run_id),
    controls: [...ctl].sort((a, b) => a[1] - b[1]).map(([id]) => id),
    lastPassing: first && first.before_id !== null && Number(first.before_at) < firstAt ? first.before_id : null,
  };
}
