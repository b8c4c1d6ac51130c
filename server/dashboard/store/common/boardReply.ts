/**
 * `GET /api/stalls` answered by the database (docs/design.md#stall-board): the groups counted by SQL GROUP BY
 * (boardGroups.ts), the scopes' sizes, nodes and strips by GROUP BY and ROW_NUMBER, all in one statement
 * (boardScopes.ts), and only the
 * runs the reply names read by id (boardDetails.ts) — then filled by the same pure rules as the JavaScript fold
 * (shared/stalls: `assembleGroup`, `stripOf`, `groupReply`, `nearestTo`), so the two answer alike on the same runs
 * (test/server/dashboard/store/boardReply.test.ts). Both stores run it: SQLite on its reader thread.
 */
import type { Kysely } from 'kysely';
import { StallscopeError } from '../../../../shared/errors.ts';
import { stripOf, type JobStrip } from '../../../../shared/stalls/jobStrip.ts';
import {
  assembleGroup,
  compareGroups,
  nearestTo,
  runFingerprints,
  UNKNOWN_NODE,
  type BoardRun,
  type StallGroup,
} from '../../../../shared/stalls/stallBoard.ts';
import { groupReply, type BoardPick, type StallBoardReply } from '../../../../shared/stalls/stallsApi.ts';
import { boardRunsById, type IdTable } from './boardDetails.ts';
import { groupCounts, groupKey, type OccurrenceRow } from './boardGroups.ts';
import { boardRows, windowSize, type StripRow } from './boardScopes.ts';
import type { BoardFilter } from './records.ts';
import type { StallscopeDb } from './schema.ts';

const scopeKey = (r: { pipeline: string; step: string }) => `${r.pipeline}\u0000${r.step}`;
const orNull = (s: string) => s || null;

/**
 * The board over the window of `f`: the groups `pick` names, each with its scope's strip over its last `last` runs;
 * `ids` is the store's SQL for a table of ids (boardDetails.ts).
 */
export async function boardReply(
  db: Kysely<StallscopeDb>,
  ids: IdTable,
  f: BoardFilter,
  last: number,
  pick: BoardPick = {},
): Promise<StallBoardReply> {
  const size = await windowSize(db, f);
  const { counts, groupsTotal, occurrences, strips, nodes: nodeRows } = await boardRows(db, f, last, pick);
  const reply = { groupsTotal, runsConsidered: size.runs, truncated: size.truncated };
  if (counts.length === 0) return { groups: [], ...reply };
  const nodes = new Map<string, Map<string, number>>();
  for (const n of nodeRows) {
    const byNode = nodes.get(scopeKey(n)) ?? new Map<string, number>();
    const node = n.node ?? UNKNOWN_NODE;
    byNode.set(node, (byNode.get(node) ?? 0) + Number(n.runs));
    nodes.set(scopeKey(n), byNode);
  }
  const groupsCounted = counts.map((c) => ({ c, g: groupCounts(c, occurrences.get(groupKey(c)) ?? []) }));
  const named = new Set<string>(strips.map((s) => s.id));
  for (const { g } of groupsCounted) for (const id of [...g.runs, ...g.controls]) named.add(id);
  const runs = await boardRunsById(db, [...named], ids);
  const run = (id: string): BoardRun => {
    const r = runs.get(id);
    // Both stores read in one snapshot; only the in-memory store (one connection, no snapshot) can lose a run here.
    if (!r) throw new StallscopeError('BOARD_CHANGED', `run ${id} left the board while it was read`);
    return r;
  };
  const stripByScope = scopeStrips(strips, run, last);
  const groups: { group: StallGroup; rows: OccurrenceRow[]; strip: JobStrip }[] = groupsCounted.map(({ c, g }) => {
    const rows = occurrences.get(groupKey(c)) ?? [];
    const occ = g.runs.map(run);
    const head = runFingerprints(occ[0]).find((e) => e.fingerprint === c.fingerprint)!;
    const group = assembleGroup({
      job: { pipeline: g.pipeline, step: g.step },
      head,
      occurrences: occ,
      controls: g.controls.map(run),
      lastPassing: g.lastPassing === null ? null : run(g.lastPassing),
      scopeRuns: g.scopeRuns,
      scopeNodes: nodes.get(scopeKey(c)) ?? new Map(),
    });
    return { group, rows, strip: stripByScope.get(scopeKey(c))! };
  });
  groups.sort((a, b) => compareGroups(a.group, b.group));
  // The rank let every group tied with the last one through: the board's full order cuts them here.
  if (pick.limit !== undefined) groups.length = Math.min(groups.length, pick.limit);
  return {
    ...reply,
    groups: groups.map(({ group, rows, strip }) => {
      const near = new Map(rows.map((o) => [o.run_id, o]));
      const controlOf = (id: string) => {
        const o = near.get(id)!;
        const sides = [
          o.before_id === null ? null : { id: o.before_id, atMs: Number(o.before_at) },
          o.after_id === null ? null : { id: o.after_id, atMs: Number(o.after_at) },
        ].filter((x): x is { id: string; atMs: number } => x !== null);
        return nearestTo(Number(o.at_ms), sides)?.id ?? null;
      };
      return groupReply(group, controlOf, strip);
    }),
  };
}

/** Each scope's strip from its rows: the last `last` runs (oldest first) and the prior control past them. */
function scopeStrips(rows: readonly StripRow[], run: (id: string) => BoardRun, last: number): Map<string, JobStrip> {
  const byScope = new Map<string, StripRow[]>();
  for (const r of rows) {
    const list = byScope.get(scopeKey(r)) ?? [];
    list.push(r);
    byScope.set(scopeKey(r), list);
  }
  const out = new Map<string, JobStrip>();
  for (const [k, list] of byScope) {
    const tail = list.filter((r) => Number(r.rn) <= last);
    const prior = list.find((r) => Number(r.rn) > last);
    const head = list[0];
    out.set(
      k,
      stripOf({
        pipeline: orNull(head.pipeline),
        step: orNull(head.step),
        tail: tail.map((r) => run(r.id)),
        // rn counts back from the newest: the prior control is rn − last runs before the strip's first.
        prior: prior ? { run: run(prior.id), runsBefore: Number(prior.rn) - last } : null,
        total: { stalled: Number(head.scope_stalled), runs: Number(head.scope_runs) },
      }),
    );
  }
  return out;
}
