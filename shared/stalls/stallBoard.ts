/**
 * The pattern across runs: which stalls recur, on which builds, nodes and
 * commits, and which runs of the same job passed beside them (the passing
 * controls). Pure: the dashboard hands it the runs it read, the UI draws what
 * it returns. Grouping rules:
 *
 * - a run counts once per fingerprint, however many reports it has;
 * - a timeout with no stack joins its run's stack fingerprint(s); a run with
 *   only timeouts forms a phase-only fingerprint;
 * - a job is a CI pipeline and step (`ci_pipeline`, `ci_step`); the passing
 *   controls of a stall are the runs of its job without a stall that are
 *   nearest in time on each side of it.
 */

/** One piece of stall evidence of a run, already fingerprinted (shared/stalls/fingerprint.ts). */
export interface StallEvidence {
  kind: 'watchdog' | 'py-spy' | 'timeout';
  fingerprint: string;
  phase: string;
  frames: string[];
  label: string;
  /** Where to see it: the report's key in its run, e.g. `w0-op3`, `capture-1`, `timeout`. */
  ref: string;
}

export interface BoardRun {
  id: string;
  /** When the run happened (epoch ms): its start, or an imported file's own date. */
  atMs: number;
  verdict: string | null;
  status: string;
  label: string | null;
  metadata: Readonly<Record<string, string>>;
  evidence: readonly StallEvidence[];
}

export interface StallOccurrence {
  runId: string;
  atMs: number;
  build: string | null;
  node: string | null;
  commit: string | null;
  refs: string[];
}

export interface StallGroup {
  fingerprint: string;
  phase: string;
  frames: string[];
  label: string;
  /** Runs with this fingerprint. */
  occurrences: number;
  runs: string[];
  builds: string[];
  nodes: string[];
  commits: string[];
  /** Runs of the same jobs without a stall, nearest in time on each side of each occurrence. */
  controls: { runs: string[]; builds: string[] };
  /** Epoch ms of the first and last occurrence. */
  firstSeen: number;
  lastSeen: number;
  evidence: StallOccurrence[];
}

const meta = (r: BoardRun, k: string): string | null => r.metadata[k] || null;
const jobOf = (r: BoardRun): string | null => {
  const p = meta(r, 'ci_pipeline');
  const s = meta(r, 'ci_step');
  return p === null && s === null ? null : `${p ?? ''}\u0000${s ?? ''}`;
};

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

const distinct = (xs: (string | null)[]): string[] => [...new Set(xs.filter((x): x is string => x !== null))];

/** Nearest controls of the same job on each side of `at` (one before, one after, when they exist). */
function controlsAround(at: number, job: string | null, byJob: Map<string | null, BoardRun[]>): BoardRun[] {
  if (job === null) return [];
  const controls = byJob.get(job) ?? [];
  let before: BoardRun | null = null;
  let after: BoardRun | null = null;
  for (const c of controls) {
    if (c.atMs <= at && (before === null || c.atMs > before.atMs)) before = c;
    if (c.atMs > at && (after === null || c.atMs < after.atMs)) after = c;
  }
  return [before, after].filter((c): c is BoardRun => c !== null);
}

/** One group per fingerprint, most occurrences first (then most recent). */
export function groupStalls(runs: readonly BoardRun[]): StallGroup[] {
  const controlsByJob = new Map<string | null, BoardRun[]>();
  for (const r of runs) {
    if (!isControl(r)) continue;
    const job = jobOf(r);
    const list = controlsByJob.get(job);
    if (list) list.push(r);
    else controlsByJob.set(job, [r]);
  }
  const groups = new Map<string, { head: StallEvidence; occ: StallOccurrence[]; controls: Map<string, BoardRun> }>();
  for (const r of runs) {
    for (const fp of runFingerprints(r)) {
      let g = groups.get(fp.fingerprint);
      if (!g) groups.set(fp.fingerprint, (g = { head: fp, occ: [], controls: new Map() }));
      g.occ.push({
        runId: r.id,
        atMs: r.atMs,
        build: meta(r, 'ci_build'),
        node: meta(r, 'ci_node'),
        commit: meta(r, 'ci_commit'),
        refs: r.evidence.filter((e) => e.fingerprint === fp.fingerprint || e.kind === 'timeout').map((e) => e.ref),
      });
      for (const c of controlsAround(r.atMs, jobOf(r), controlsByJob)) g.controls.set(c.id, c);
    }
  }
  const out: StallGroup[] = [];
  for (const { head, occ, controls } of groups.values()) {
    occ.sort((a, b) => a.atMs - b.atMs);
    const ctl = [...controls.values()].sort((a, b) => a.atMs - b.atMs);
    out.push({
      fingerprint: head.fingerprint,
      phase: head.phase,
      frames: head.frames,
      label: head.label,
      occurrences: occ.length,
      runs: occ.map((o) => o.runId),
      builds: distinct(occ.map((o) => o.build)),
      nodes: distinct(occ.map((o) => o.node)),
      commits: distinct(occ.map((o) => o.commit)),
      controls: { runs: ctl.map((c) => c.id), builds: distinct(ctl.map((c) => meta(c, 'ci_build'))) },
      firstSeen: occ[0].atMs,
      lastSeen: occ[occ.length - 1].atMs,
      evidence: occ,
    });
  }
  return out.sort((a, b) => b.occurrences - a.occurrences || b.lastSeen - a.lastSeen);
}

export type StripOutcome = 'passed' | 'failed' | 'stalled';

export interface JobStrip {
  pipeline: string | null;
  step: string | null;
  /** The job's last runs, oldest first. */
  runs: {
    id: string;
    atMs: number;
    build: string | null;
    node: string | null;
    outcome: StripOutcome;
    fingerprint: string | null;
    label: string | null;
  }[];
  /** Per node: runs and stalled runs among them. */
  nodes: { node: string; runs: number; stalled: number; hangRate: number }[];
  stalled: number;
  hangRate: number;
}

/** The last `n` runs of one job (pipeline and step), as a strip grouped by node. */
export function jobStrip(runs: readonly BoardRun[], pipeline: string | null, step: string | null, n = 20): JobStrip {
  const mine = runs
    .filter((r) => meta(r, 'ci_pipeline') === pipeline && meta(r, 'ci_step') === step)
    .sort((a, b) => a.atMs - b.atMs)
    .slice(-n);
  const cells = mine.map((r) => {
    const fp = runFingerprints(r)[0] ?? null;
    const outcome: StripOutcome = fp ? 'stalled' : r.verdict === 'passed' ? 'passed' : 'failed';
    return {
      id: r.id,
      atMs: r.atMs,
      build: meta(r, 'ci_build'),
      node: meta(r, 'ci_node'),
      outcome,
      fingerprint: fp?.fingerprint ?? null,
      label: fp?.label ?? null,
    };
  });
  const byNode = new Map<string, { runs: number; stalled: number }>();
  for (const c of cells) {
    const k = c.node ?? '(unknown node)';
    const e = byNode.get(k) ?? { runs: 0, stalled: 0 };
    e.runs++;
    if (c.outcome === 'stalled') e.stalled++;
    byNode.set(k, e);
  }
  const stalled = cells.filter((c) => c.outcome === 'stalled').length;
  return {
    pipeline,
    step,
    runs: cells,
    nodes: [...byNode]
      .map(([node, e]) => ({ node, ...e, hangRate: e.stalled / e.runs }))
      .sort((a, b) => a.node.localeCompare(b.node)),
    stalled,
    hangRate: cells.length ? stalled / cells.length : 0,
  };
}

const list = (xs: readonly string[]) => xs.join(', ');
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The pattern in one sentence, e.g. "fingerprint hift/_synchronize seen in 5 of
 * the last 7 runs of minicpmo-accuracy (builds 14528, 14598, 14604, 14606,
 * 14607) on 3 nodes; passing controls 14541, 14600".
 */
export function patternSentence(group: StallGroup, strip: JobStrip): string {
  const inStrip = strip.runs.filter((r) => r.fingerprint === group.fingerprint);
  const job = strip.step ?? strip.pipeline ?? 'this job';
  const builds = distinct(inStrip.map((r) => r.build));
  const nodes = distinct(inStrip.map((r) => r.node));
  const stripIds = new Set(strip.runs.map((r) => r.id));
  const controls = strip.runs.filter(
    (r) => r.outcome === 'passed' && group.controls.runs.includes(r.id) && stripIds.has(r.id),
  );
  const controlNames = distinct(controls.map((c) => c.build ?? c.id));
  return (
    `fingerprint ${group.label} seen in ${inStrip.length} of the last ${plural(strip.runs.length, 'run')} of ${job}` +
    (builds.length ? ` (${plural(builds.length, 'build').replace(/^\d+ /, '')} ${list(builds)})` : '') +
    (nodes.length ? ` on ${plural(nodes.length, 'node')}` : '') +
    (controlNames.length ? `; passing controls ${list(controlNames)}` : '; no passing control')
  );
}
