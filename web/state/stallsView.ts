/**
 * What the Stalls page says about the board (docs/design.md#stall-board),
 * pure: where an occurrence's evidence is, a job's strip by node, rates in
 * words, the filter the URL holds, the run to compare a group with.
 */
import type { JobBoard, StallGroupReply } from '../../shared/stalls/stallsApi.ts';
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

export type StripCell = JobBoard['runs'][number];

/** A job's strip as rows by node (the board's node order), each with its runs oldest first and its hang rate. */
export function stripByNode(job: JobBoard): { node: string; hangRate: number; stalled: number; cells: StripCell[] }[] {
  return job.nodes.map((n) => ({
    node: n.node,
    hangRate: n.hangRate,
    stalled: n.stalled,
    cells: job.runs.filter((r) => (r.node ?? '(unknown node)') === n.node),
  }));
}

/** The metadata pairs typed in the filter (`ci_node=a ci_step=b`). */
export const metaPairs = (meta: string | undefined): string[] =>
  (meta ?? '').split(/[\s,]+/).filter((m) => m.indexOf('=') > 0);

/** The board's query for the URL's filters. */
export function stallsFilter(q: StallsQuery): { metadata: string[]; since?: string; until?: string } {
  return {
    metadata: metaPairs(q.meta),
    ...(q.since ? { since: q.since } : {}),
    ...(q.until ? { until: q.until } : {}),
  };
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

export const whenText = (ms: number): string => new Date(ms).toLocaleString();
