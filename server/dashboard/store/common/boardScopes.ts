/**
 * The stall board's rows in one statement (docs/design.md#stall-board), so the window and its CTEs
 * (boardGroups.ts) are computed once, not once per part: the groups (GROUP BY scope and fingerprint), their
 * occurrences with the nearest passing controls, each stalled scope's strip — its last `last` runs and the nearest
 * passing control before them (ROW_NUMBER over the scope) — and its runs per node (GROUP BY). One UNION ALL, each
 * part's rows told apart by `kind`; no other run of the window leaves the database.
 */
import { sql, type Kysely } from 'kysely';
import {
  boardCtes,
  byGroup,
  countsSelect,
  groupCounts,
  groupKey,
  occurrencesSelect,
  windowRuns,
  type CountRow,
  type GroupCounts,
  type OccurrenceRow,
} from './boardGroups.ts';
import type { BoardPick } from '../../../../shared/stalls/stallsApi.ts';
import type { BoardFilter } from './records.ts';
import type { StallscopeDb } from './schema.ts';

/** A run of a scope's strip (`rn` ≤ last, 1 the newest) or its prior control (`rn` past the strip). */
export interface StripRow {
  id: string;
  at_ms: number | string;
  verdict: string | null;
  pipeline: string;
  step: string;
  rn: number | string;
  scope_runs: number | string;
  scope_stalled: number | string;
}

/** Runs of one node of a stalled scope (a null node: the runs without `ci_node`). */
export interface NodeCountRow {
  pipeline: string;
  step: string;
  node: string | null;
  runs: number | string;
}

/** One row of the statement: the union of the four parts' columns, the unused ones null. */
interface BoardRow {
  kind: 'g' | 't' | 'o' | 's' | 'n';
  pipeline: string;
  step: string;
  fingerprint: string | null;
  id: string | null;
  at_ms: number | string | null;
  node: string | null;
  verdict: string | null;
  a: number | string | null;
  b: number | string | null;
  c: number | string | null;
  d: number | string | null;
  before_id: string | null;
  before_at: number | string | null;
  after_id: string | null;
  after_at: number | string | null;
}

const TEXT = sql`CAST(NULL AS TEXT)`;
const INT = sql`CAST(NULL AS BIGINT)`;

export interface BoardRows {
  /** The groups `pick` names (with every group tied with the last), and how many matched. */
  counts: CountRow[];
  groupsTotal: number;
  occurrences: Map<string, OccurrenceRow[]>;
  /** By scope, oldest first. */
  strips: StripRow[];
  nodes: NodeCountRow[];
}

/**
 * The board's rows over the window of `f`, the strips over each scope's last `last` runs; of the groups, those
 * `pick` names: one fingerprint's, and the first `limit` in the board's order (by rank, so every group tied with the
 * last one comes too: the caller orders them by `compareGroups` and cuts, as the fold does) — only their
 * occurrences, and only their scopes' strips and nodes, leave the database.
 */
export async function boardRows(
  db: Kysely<StallscopeDb>,
  f: BoardFilter,
  last: number,
  pick: BoardPick = {},
): Promise<BoardRows> {
  const { rows } = await sql<BoardRow>`${boardCtes(f, pick.fingerprint)},
    g AS (${countsSelect}),
    top AS (
      SELECT * FROM (
        SELECT g.*, RANK() OVER (ORDER BY CASE WHEN pipeline = '' AND step = '' THEN 1 ELSE 0 END,
          occurrences DESC, last_seen DESC) AS place
        FROM g
      ) x ${pick.limit === undefined ? sql`` : sql`WHERE place <= ${pick.limit}`}
    ),
    scopes AS (SELECT DISTINCT pipeline, step FROM top),
    ranked AS (
      SELECT near.*, ROW_NUMBER() OVER (PARTITION BY pipeline, step ORDER BY at_ms DESC, id DESC) AS rn
      FROM near WHERE EXISTS (SELECT 1 FROM scopes c WHERE c.pipeline = near.pipeline AND c.step = near.step)
    ),
    prior AS (
      SELECT pipeline, step, MIN(rn) AS prior_rn FROM ranked WHERE ctl_at IS NOT NULL AND rn > ${last}
      GROUP BY pipeline, step
    )
    SELECT 'g' AS kind, t.pipeline, t.step, t.fingerprint, ${TEXT} AS id, ${INT} AS at_ms, ${TEXT} AS node,
      ${TEXT} AS verdict, t.occurrences AS a, t.first_seen AS b, t.last_seen AS c, t.scope_runs AS d,
      ${TEXT} AS before_id, ${INT} AS before_at, ${TEXT} AS after_id, ${INT} AS after_at
    FROM top t
    UNION ALL
    SELECT 't', '', '', ${TEXT}, ${TEXT}, ${INT}, ${TEXT}, ${TEXT}, COUNT(*), ${INT}, ${INT}, ${INT},
      ${TEXT}, ${INT}, ${TEXT}, ${INT}
    FROM g
    UNION ALL
    SELECT 'o', o.pipeline, o.step, o.fingerprint, o.run_id, o.at_ms, o.node, ${TEXT}, ${INT}, ${INT}, ${INT}, ${INT},
      o.before_id, o.before_at, o.after_id, o.after_at
    FROM (${occurrencesSelect}) o
    WHERE EXISTS (SELECT 1 FROM top t WHERE t.pipeline = o.pipeline AND t.step = o.step AND t.fingerprint = o.fingerprint)
    UNION ALL
    SELECT 's', k.pipeline, k.step, ${TEXT}, k.id, k.at_ms, ${TEXT}, k.verdict, k.rn, k.scope_runs, k.scope_stalled,
      ${INT}, ${TEXT}, ${INT}, ${TEXT}, ${INT}
    FROM ranked k LEFT JOIN prior p ON p.pipeline = k.pipeline AND p.step = k.step
    WHERE k.rn <= ${last} OR k.rn = p.prior_rn
    UNION ALL
    SELECT 'n', pipeline, step, ${TEXT}, ${TEXT}, ${INT}, node, ${TEXT}, COUNT(*), ${INT}, ${INT}, ${INT},
      ${TEXT}, ${INT}, ${TEXT}, ${INT}
    FROM near WHERE EXISTS (SELECT 1 FROM scopes c WHERE c.pipeline = near.pipeline AND c.step = near.step)
    GROUP BY pipeline, step, node
    ORDER BY 1, 2, 3, 6, 5, 13, 15`.execute(db);
  const out: BoardRows = { counts: [], groupsTotal: 0, occurrences: new Map(), strips: [], nodes: [] };
  const occurrences: OccurrenceRow[] = [];
  for (const r of rows)
    if (r.kind === 'g')
      out.counts.push({
        pipeline: r.pipeline,
        step: r.step,
        fingerprint: r.fingerprint!,
        occurrences: r.a!,
        first_seen: r.b!,
        last_seen: r.c!,
        scope_runs: r.d!,
      });
    else if (r.kind === 'o')
      occurrences.push({
        pipeline: r.pipeline,
        step: r.step,
        fingerprint: r.fingerprint!,
        run_id: r.id!,
        at_ms: r.at_ms!,
        node: r.node,
        before_id: r.before_id,
        before_at: r.before_at,
        after_id: r.after_id,
        after_at: r.after_at,
      });
    else if (r.kind === 's')
      out.strips.push({
        id: r.id!,
        at_ms: r.at_ms!,
        verdict: r.verdict,
        pipeline: r.pipeline,
        step: r.step,
        rn: r.a!,
        scope_runs: r.b!,
        scope_stalled: r.c!,
      });
    else if (r.kind === 't') out.groupsTotal = Number(r.a);
    else out.nodes.push({ pipeline: r.pipeline, step: r.step, node: r.node, runs: r.a! });
  out.occurrences = byGroup(occurrences);
  return out;
}

/** The board's groups over the window of `f` as the one statement counts them, all of them, each with its counts. */
export async function boardGroupCounts(db: Kysely<StallscopeDb>, f: BoardFilter): Promise<GroupCounts[]> {
  const { counts, occurrences } = await boardRows(db, f, 1);
  return counts.map((c) => groupCounts(c, occurrences.get(groupKey(c)) ?? []));
}

/** How many runs the window holds, and whether more matched the filter than it reads. */
export async function windowSize(
  db: Kysely<StallscopeDb>,
  f: BoardFilter,
): Promise<{ runs: number; truncated: boolean }> {
  const r = await sql<{
    n: number | string;
  }>`SELECT COUNT(*) AS n FROM (${windowRuns({ ...f, maxRuns: f.maxRuns + 1 })}) x`.execute(db);
  const n = Number(r.rows[0]?.n ?? 0);
  return { runs: Math.min(n, f.maxRuns), truncated: n > f.maxRuns };
}
