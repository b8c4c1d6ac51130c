/**
 * What the Stalls page says about the board (docs/design.md#stall-board),
 * pure: where an occurrence's evidence is, a job's strip by node, rates in
 * words, the filter the URL holds, the run to compare a group with.
 */
import { count } from '../../shared/format.ts';
import { BOARD_DEFAULT_GROUPS, BOARD_MAX_GROUPS } from '../../shared/stalls/boardLimits.ts';
import type { JobBoard, StallBoardReply, StallGroupReply } from '../../shared/stalls/stallsApi.ts';
import type { Route, StallsQuery } from './router.ts';

/** The run page at a piece of evidence: a first timeout opens its request, a report is brought into view. */
export function evidenceRoute(runId: string, ref: string): Route {
  const timeout = /^timeout-(\d+)$/.exec(ref);
  return timeout ? { page: 'run', id: runId, request: Number(timeout[1]) } : { page: 'run', id: runId, stall: ref };
}

/** How a ref reads: `watchdog w0 op 3`, `py-spy capture 1`, `first timeout, request #4`. */
export function evidenceName(ref: string): string {
  let m = /^w(\d+)-op(\d+)$/.exec(ref);
  if (m) return `watchdog: worker ${m[1]}, op ${m[2]}`;
  m = /^capture-(\d+)$/.exec(ref);
  if (m) return `py-spy capture ${m[1]}`;
  m = /^timeout-(\d+)$/.exec(ref);
  return m ? `first timeout: request #${m[1]}` : ref;
}

export const percent = (rate: number): string => `${Math.round(rate * 100)} %`;

/** What the page says when the reply holds fewer groups than matched (the most frequent first), else null. */
export function groupsShown(board: Pick<StallBoardReply, 'groups' | 'groupsTotal'>): string | null {
  if (board.groupsTotal <= board.groups.length) return null;
  return `Showing the ${count(board.groups.length)} most frequent of ${count(board.groupsTotal)} groups.`;
}

export type StripCell = JobBoard['runs'][number];

/** A job's strip as rows by node (the board's node order), each with its runs oldest first and its hang rate. */
export function stripByNode(
  job: JobBoard,
): { node: string; hangRate: number; low: number; high: number; stalled: number; cells: StripCell[] }[] {
  return job.nodes.map((n) => ({
    node: n.node,
    hangRate: n.hangRate,
    low: n.low,
    high: n.high,
    stalled: n.stalled,
    cells: job.runs.filter((r) => (r.node ?? '(unknown node)') === n.node),
  }));
}

/** The metadata pairs typed in the filter (`ci_node=a ci_step=b`). */
export const metaPairs = (meta: string | undefined): string[] =>
  (meta ?? '').split(/[\s,]+/).filter((m) => m.indexOf('=') > 0);

/** The board's query: its filters and how many groups. */
export interface StallsFilter {
  metadata: string[];
  since?: string;
  until?: string;
  fingerprint?: string;
  limit?: number;
}

/** The board's query for the URL's filters. */
export function stallsFilter(q: StallsQuery): StallsFilter {
  const limit = shownGroups(q);
  return {
    metadata: metaPairs(q.meta),
    ...(q.fp && /^[0-9a-f]{12}$/.test(q.fp) ? { fingerprint: q.fp } : {}),
    ...(q.since ? { since: q.since } : {}),
    ...(q.until ? { until: q.until } : {}),
    // The default is the server's (and the board it keeps warm): asked for only when it differs.
    ...(limit === BOARD_DEFAULT_GROUPS ? {} : { limit }),
  };
}

/** How many groups the URL asks the board for: within 1…BOARD_MAX_GROUPS, the default when unset. */
export function shownGroups(q: Pick<StallsQuery, 'groups'>): number {
  const n = Number(q.groups);
  return q.groups && Number.isInteger(n) && n >= 1 ? Math.min(n, BOARD_MAX_GROUPS) : BOARD_DEFAULT_GROUPS;
}

/** The query that shows the next groups (as many again as the default), or null when every group is shown. */
export function moreGroups(
  q: StallsQuery,
  board: Pick<StallBoardReply, 'groups' | 'groupsTotal'>,
): { query: StallsQuery; more: number } | null {
  const shown = shownGroups(q);
  if (board.groupsTotal <= board.groups.length || shown >= BOARD_MAX_GROUPS) return null;
  const next = Math.min(shown + BOARD_DEFAULT_GROUPS, board.groupsTotal, BOARD_MAX_GROUPS);
  return { query: { ...q, groups: String(next) }, more: next - board.groups.length };
}

/**
 * Whether `next` asks for the same board as `prev` with more of its groups ("Show N more"): the groups `prev` holds
 * are the first of `next`'s, so they stay drawn while the longer reply is on its way instead of the page going back
 * to "Loading".
 */
export function moreOfSameBoard(prev: StallsFilter, next: StallsFilter): boolean {
  return (
    prev.metadata.join('\u0000') === next.metadata.join('\u0000') &&
    prev.since === next.since &&
    prev.until === next.until &&
    prev.fingerprint === next.fingerprint &&
    (next.limit ?? BOARD_DEFAULT_GROUPS) > (prev.limit ?? BOARD_DEFAULT_GROUPS)
  );
}

/**
 * "Compare with the nearest passing control" for a group: its latest occurrence that has a control, and
 * that control, or null when none of its jobs ever passed.
 */
export function compareIds(g: StallGroupReply): [string, string] | null {
  for (let i = g.evidence.length - 1; i >= 0; i--) {
    const o = g.evidence[i];
    if (o.control) return [o.runId, o.control];
  }
  return null;
}

/** A rate with its 95 % Wilson interval: "63 % (31–86 %)". */
export const rateText = (r: { hangRate: number; low: number; high: number }): string =>
  `${percent(r.hangRate)} (${Math.round(r.low * 100)}–${Math.round(r.high * 100)} %)`;

/** What a group's scope is called: its job ("vllm-omni / minicpmo-accuracy"), or the local runs. */
export const scopeName = (g: { scope: string; pipeline: string | null; step: string | null }): string =>
  g.scope === 'local' ? 'runs without CI metadata' : [g.pipeline, g.step].filter(Boolean).join(' / ');

/** The metadata filter's hint when no run matched: the keys CI runs carry. */
export const CI_KEYS_HINT =
  'CI runs carry ci_pipeline, ci_step, ci_build, ci_node, ci_commit and ci_provider: e.g. ci_pipeline=vllm-omni ci_node=mi325-agent-2.';
