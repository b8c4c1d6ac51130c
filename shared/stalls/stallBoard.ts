/**
 * The pattern across runs: which stalls recur, in which CI job, on which
 * builds, nodes and commits, and which runs of the same job passed beside
 * them (the passing controls). Pure: the dashboard hands it the runs it read,
 * the UI draws what it returns. Grouping rules (docs/design.md#stall-board):
 *
 * - a group is one fingerprint in one **scope**: a CI job (`ci_pipeline`,
 *   `ci_step`), or the runs without either (`local`: a developer's runs, never
 *   counted into a CI job's occurrences or hang rate);
 * - a run counts once per fingerprint, however many reports it has;
 * - a timeout with no stack joins its run's stack fingerprint(s); a run with
 *   only timeouts forms a phase-only fingerprint;
 * - the passing controls of a stall are the runs of its scope without a stall
 *   that passed, nearest in time on each side of it; the onset is the last
 *   control before the scope's first run with the stall (the range to bisect).
 */
import { jobKey, jobOf, meta, type BoardRun, type JobId, type StallEvidence } from './boardRun.ts';
import { rateOf } from './wilson.ts';

export type { BoardRun, StallEvidence } from './boardRun.ts';

export interface StallOccurrence {
  runId: string;
  atMs: number;
  build: string | null;
  /** `ci_build_url` as reported: link it only through shared/runInfo/runTitle.ts `ciBuildHref` (http/https). */
  buildUrl: string | null;
  node: string | null;
  commit: string | null;
  refs: string[];
}

/** A run named by where it ran: the ends of an onset. */
export interface RunRef {
  runId: string;
  atMs: number;
  build: string | null;
  commit: string | null;
}

/** One node of a group's scope: its runs, those with this fingerprint, the rate and its 95 % Wilson interval. */
export type NodeRate = { node: string } & ReturnType<typeof rateOf>;

export interface StallGroup extends JobId {
  /** `job`: a CI pipeline and step; `local`: the runs without CI metadata, a scope of their own. */
  scope: 'job' | 'local';
  fingerprint: string;
  phase: string;
  frames: string[];
  label: string;
  /** Runs of this scope with this fingerprint. */
  occurrences: number;
  runs: string[];
  builds: string[];
  nodes: string[];
  commits: string[];
  /** Runs of the scope read, and this fingerprint's rate among them with its 95 % Wilson interval. */
  scopeRuns: number;
  hangRate: number;
  low: number;
  high: number;
  /** Per node of the scope (its runs, this fingerprint's runs, the rate and interval), by node name. */
  nodeRates: NodeRate[];
  /** Runs of the same scope without a stall, nearest in time on each side of each occurrence. */
  controls: { runs: string[]; builds: string[] };
  /** The last passing control before the first occurrence (null: none before it) and that first occurrence. */
  onset: { lastPassing: RunRef | null; firstStalled: RunRef };
  /** Epoch ms of the first and last occurrence. */
  firstSeen: number;
  lastSeen: number;
  evidence: StallOccurrence[];
}

/** The evidence that defines a run's fingerprints: its stacks, else its timeouts. */
export function runFingerprints(r: BoardRun): StallEvidence[] {
  const stacks = r.evidence.filter((e) => e.kind !== 'timeout');
  const chosen = stacks.length > 0 ? stacks : r.evidence;
  const seen = new Map<string, StallEvidence>();
  for (const e of chosen) if (!seen.has(e.fingerprint)) seen.set(e.fingerprint, e);
  return [...seen.values()];
}

export const isStalled = (r: BoardRun): boolean => r.evidence.length > 0;
/** A passing control: a finished run that passed with no stall evidence. */
export const isControl = (r: BoardRun): boolean => !isStalled(r) && r.verdict === 'passed';

export type StripOutcome = 'passed' | 'failed' | 'stalled';

/**
 * A run's outcome, the one rule the board's strips and /metrics' `stallscope_job_runs` count by: stalled when it has
 * stall evidence (whatever its verdict), passed when its verdict is, failed otherwise (a running run included).
 */
export function runOutcome(stalled: boolean, verdict: string | null): StripOutcome {
  return stalled ? 'stalled' : verdict === 'passed' ? 'passed' : 'failed';
}

export const UNKNOWN_NODE = '(unknown node)';

export const distinct = (xs: (string | null)[]): string[] => [...new Set(xs.filter((x): x is string => x !== null))];

const runRef = (r: BoardRun): RunRef => ({
  runId: r.id,
  atMs: r.atMs,
  build: meta(r, 'ci_build'),
  commit: meta(r, 'ci_commit'),
});

/** Nearest controls on each side of `at` (one before, one after, when they exist). */
function controlsAround(at: number, controls: readonly BoardRun[]): BoardRun[] {
  let before: BoardRun | null = null;
  let after: BoardRun | null = null;
  for (const c of controls) {
    if (c.atMs <= at && (before === null || c.atMs > before.atMs)) before = c;
    if (c.atMs > at && (after === null || c.atMs < after.atMs)) after = c;
  }
  return [before, after].filter((c): c is BoardRun => c !== null);
}

/**
 * Of `candidates`, the one nearest to `at` in time (either side), or null; of two as near, the earlier (the last
 * green run before a stall: what changed since is what to look at). The nearest of all controls is the nearer of
 * the nearest on each side, so a caller may pass just those two (the database's board does).
 */
export function nearestTo<T extends { atMs: number }>(at: number, candidates: readonly T[]): T | null {
  let best: T | null = null;
  for (const c of candidates) {
    const d = Math.abs(c.atMs - at);
    const bestD = best === null ? Infinity : Math.abs(best.atMs - at);
    if (d < bestD || (d === bestD && c.atMs < best!.atMs)) best = c;
  }
  return best;
}

/** Per node of a scope: its runs (`scopeNodes`, by node name) and those of them in `occurrences`. */
function nodeRates(scopeNodes: ReadonlyMap<string, number>, occurrences: readonly BoardRun[]): NodeRate[] {
  const stalled = new Map<string, number>();
  for (const r of occurrences) {
    const k = meta(r, 'ci_node') ?? UNKNOWN_NODE;
    stalled.set(k, (stalled.get(k) ?? 0) + 1);
  }
  return [...scopeNodes]
    .map(([node, runs]) => ({ node, ...rateOf(stalled.get(node) ?? 0, runs) }))
    .sort((a, b) => a.node.localeCompare(b.node));
}

/** A scope's runs by node (a run without `ci_node` under UNKNOWN_NODE). */
export function runsByNode(scopeRuns: readonly BoardRun[]): Map<string, number> {
  const byNode = new Map<string, number>();
  for (const r of scopeRuns) {
    const k = meta(r, 'ci_node') ?? UNKNOWN_NODE;
    byNode.set(k, (byNode.get(k) ?? 0) + 1);
  }
  return byNode;
}

/** What one group is made of, however it was counted (this fold, or the database: store/common/boardReply.ts). */
export interface GroupParts {
  job: JobId;
  /** The evidence that names the fingerprint (its phase, frames and label). */
  head: StallEvidence;
  /** The scope's runs with this fingerprint, oldest first, with their evidence. */
  occurrences: readonly BoardRun[];
  /** The nearest passing control on each side of each occurrence, oldest first, each once. */
  controls: readonly BoardRun[];
  /** The last passing control before the first occurrence, or null. */
  lastPassing: BoardRun | null;
  /** Runs of the scope, and per node of it. */
  scopeRuns: number;
  scopeNodes: ReadonlyMap<string, number>;
}

/** One group from its parts: the rule both the fold and the database's board fill the reply by. */
export function assembleGroup(p: GroupParts): StallGroup {
  const { head, occurrences: runs, job } = p;
  const first = runs[0];
  const evidence = runs.map((r): StallOccurrence => ({
    ...runRef(r),
    node: meta(r, 'ci_node'),
    buildUrl: meta(r, 'ci_build_url'),
    refs: r.evidence.filter((e) => e.fingerprint === head.fingerprint || e.kind === 'timeout').map((e) => e.ref),
  }));
  const rate = rateOf(runs.length, p.scopeRuns);
  return {
    ...job,
    scope: job.pipeline === null && job.step === null ? 'local' : 'job',
    fingerprint: head.fingerprint,
    phase: head.phase,
    frames: head.frames,
    label: head.label,
    occurrences: runs.length,
    runs: runs.map((r) => r.id),
    builds: distinct(evidence.map((o) => o.build)),
    nodes: distinct(evidence.map((o) => o.node)),
    commits: distinct(evidence.map((o) => o.commit)),
    scopeRuns: p.scopeRuns,
    hangRate: rate.hangRate,
    low: rate.low,
    high: rate.high,
    nodeRates: nodeRates(p.scopeNodes, runs),
    controls: { runs: p.controls.map((c) => c.id), builds: distinct(p.controls.map((c) => meta(c, 'ci_build'))) },
    onset: { lastPassing: p.lastPassing && runRef(p.lastPassing), firstStalled: runRef(first) },
    firstSeen: first.atMs,
    lastSeen: runs[runs.length - 1].atMs,
    evidence,
  };
}

/** The groups of one scope's runs (oldest first). */
function scopeGroups(job: JobId, scopeRuns: readonly BoardRun[]): StallGroup[] {
  const controls = scopeRuns.filter(isControl);
  const scopeNodes = runsByNode(scopeRuns);
  const groups = new Map<string, { head: StallEvidence; runs: BoardRun[] }>();
  for (const r of scopeRuns)
    for (const fp of runFingerprints(r)) {
      const g = groups.get(fp.fingerprint);
      if (g) g.runs.push(r);
      else groups.set(fp.fingerprint, { head: fp, runs: [r] });
    }
  return [...groups.values()].map(({ head, runs }) => {
    const ctl = new Map<string, BoardRun>();
    for (const r of runs) for (const c of controlsAround(r.atMs, controls)) ctl.set(c.id, c);
    return assembleGroup({
      job,
      head,
      occurrences: runs,
      controls: [...ctl.values()].sort((a, b) => a.atMs - b.atMs),
      lastPassing: controls.filter((c) => c.atMs < runs[0].atMs).at(-1) ?? null,
      scopeRuns: scopeRuns.length,
      scopeNodes,
    });
  });
}

/** `runs` by scope (its job, or local), each oldest first. */
export function runsByScope(runs: readonly BoardRun[]): Map<string, { job: JobId; runs: BoardRun[] }> {
  const byScope = new Map<string, { job: JobId; runs: BoardRun[] }>();
  for (const r of runs) {
    const job = jobOf(r);
    const k = jobKey(job);
    const s = byScope.get(k);
    if (s) s.runs.push(r);
    else byScope.set(k, { job, runs: [r] });
  }
  for (const s of byScope.values()) s.runs.sort((a, b) => a.atMs - b.atMs);
  return byScope;
}

/** One group per scope and fingerprint: CI jobs' groups first, then local ones; most occurrences first, then most recent. */
export function groupStalls(runs: readonly BoardRun[]): StallGroup[] {
  const out: StallGroup[] = [];
  for (const s of runsByScope(runs).values()) out.push(...scopeGroups(s.job, s.runs));
  return out.sort(compareGroups);
}

const local = (g: StallGroup) => (g.scope === 'local' ? 1 : 0);
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The board's order: CI jobs' groups first, then local ones; most occurrences first, then most recent; then by
 * job and fingerprint, so two boards of the same runs list their groups alike however they were counted.
 */
export function compareGroups(a: StallGroup, b: StallGroup): number {
  return (
    local(a) - local(b) ||
    b.occurrences - a.occurrences ||
    b.lastSeen - a.lastSeen ||
    byText(jobKey(a), jobKey(b)) ||
    byText(a.fingerprint, b.fingerprint)
  );
}
