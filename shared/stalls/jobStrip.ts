/**
 * One scope's (a CI job's, or the local runs') last runs as a strip by node,
 * its hang rates with their 95 % Wilson intervals, and the sentence that
 * says a group's pattern in it (docs/design.md#stall-board). Pure.
 */
import { meta, type BoardRun } from './boardRun.ts';
import {
  distinct,
  isControl,
  isStalled,
  runFingerprints,
  runOutcome,
  UNKNOWN_NODE,
  type StallGroup,
  type StripOutcome,
} from './stallBoard.ts';
import { rateOf } from './wilson.ts';

export interface StripCell {
  id: string;
  atMs: number;
  build: string | null;
  node: string | null;
  outcome: StripOutcome;
  /** The run's first fingerprint (null unless stalled), and all of them. */
  fingerprint: string | null;
  fingerprints: string[];
  label: string | null;
}

type Rate = ReturnType<typeof rateOf>;

export interface JobStrip {
  pipeline: string | null;
  step: string | null;
  /** The job's last runs, oldest first. */
  runs: StripCell[];
  /** Of them, the stalled ones (any fingerprint), the hang rate and its 95 % Wilson interval. */
  stalled: number;
  hangRate: number;
  low: number;
  high: number;
  /** Per node of the strip: runs, stalled runs (any fingerprint), the rate and interval. */
  nodes: ({ node: string } & Rate)[];
  /** Every run of the job the board read (not only the strip's): what /metrics' stallscope_job_runs counts. */
  total: Rate;
  /** The job's nearest passing control before the strip's first run, and how many runs before it; null: none. */
  priorControl: { id: string; build: string | null; runsBefore: number } | null;
}

/** The last `n` runs of one job (pipeline and step; both null: the runs without CI metadata), by node. */
export function jobStrip(runs: readonly BoardRun[], pipeline: string | null, step: string | null, n = 20): JobStrip {
  const all = runs
    .filter((r) => meta(r, 'ci_pipeline') === pipeline && meta(r, 'ci_step') === step)
    .sort((a, b) => a.atMs - b.atMs);
  const from = Math.max(0, all.length - n);
  let prior = -1;
  for (let i = from - 1; i >= 0 && prior < 0; i--) if (isControl(all[i])) prior = i;
  return stripOf({
    pipeline,
    step,
    tail: all.slice(from),
    prior: prior < 0 ? null : { run: all[prior], runsBefore: from - prior },
    total: { stalled: all.filter(isStalled).length, runs: all.length },
  });
}

/** What a strip is made of, however it was read (the fold above, or the database: store/common/boardReply.ts). */
export interface StripParts {
  pipeline: string | null;
  step: string | null;
  /** The job's last runs, oldest first, with their evidence. */
  tail: readonly BoardRun[];
  /** The nearest passing control before the tail, and how many runs before its first; null: none. */
  prior: { run: BoardRun; runsBefore: number } | null;
  /** Every run of the job the board read, and the stalled ones among them. */
  total: { stalled: number; runs: number };
}

/** A strip from its parts: the one rule for cells, node rates and the prior control. */
export function stripOf(p: StripParts): JobStrip {
  const cells = p.tail.map((r): StripCell => {
    const fps = runFingerprints(r);
    return {
      id: r.id,
      atMs: r.atMs,
      build: meta(r, 'ci_build'),
      node: meta(r, 'ci_node'),
      outcome: runOutcome(isStalled(r), r.verdict),
      fingerprint: fps[0]?.fingerprint ?? null,
      fingerprints: fps.map((f) => f.fingerprint),
      label: fps[0]?.label ?? null,
    };
  });
  const byNode = new Map<string, { runs: number; stalled: number }>();
  for (const c of cells) {
    const k = c.node ?? UNKNOWN_NODE;
    const e = byNode.get(k) ?? { runs: 0, stalled: 0 };
    e.runs++;
    if (c.outcome === 'stalled') e.stalled++;
    byNode.set(k, e);
  }
  const { stalled, hangRate, low, high } = rateOf(cells.filter((c) => c.outcome === 'stalled').length, cells.length);
  return {
    pipeline: p.pipeline,
    step: p.step,
    runs: cells,
    nodes: [...byNode]
      .map(([node, e]) => ({ node, ...rateOf(e.stalled, e.runs) }))
      .sort((a, b) => a.node.localeCompare(b.node)),
    stalled,
    hangRate,
    low,
    high,
    total: rateOf(p.total.stalled, p.total.runs),
    priorControl: p.prior && {
      id: p.prior.run.id,
      build: meta(p.prior.run, 'ci_build'),
      runsBefore: p.prior.runsBefore,
    },
  };
}

const list = (xs: readonly string[]) => xs.join(', ');
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The pattern in one sentence, e.g. "fingerprint hift/_synchronize seen in 5 of
 * the last 7 runs of minicpmo-accuracy (builds 14528, 14598, 14604, 14606,
 * 14607) on 3 nodes; passing controls 14541, 14600". With no control in the
 * strip it looks past it: "…; no passing control in these 3 runs — the
 * nearest, 14541, is 2 runs before them".
 */
export function patternSentence(
  group: Pick<StallGroup, 'label' | 'fingerprint' | 'controls'>,
  strip: JobStrip,
): string {
  const inStrip = strip.runs.filter((r) => r.fingerprints.includes(group.fingerprint));
  const local = strip.pipeline === null && strip.step === null;
  const runs = plural(strip.runs.length, 'run');
  const where = local ? `${runs} without CI metadata` : `${runs} of ${strip.step ?? strip.pipeline}`;
  const builds = distinct(inStrip.map((r) => r.build));
  const nodes = distinct(inStrip.map((r) => r.node));
  const controls = strip.runs.filter((r) => r.outcome === 'passed' && group.controls.runs.includes(r.id));
  const controlNames = distinct(controls.map((c) => c.build ?? c.id));
  const p = strip.priorControl;
  const past = p
    ? `; no passing control in these ${runs} — the nearest, ${p.build ?? p.id}, is ${plural(p.runsBefore, 'run')} before them`
    : '; no passing control';
  return (
    `fingerprint ${group.label} seen in ${inStrip.length} of the last ${where}` +
    (builds.length ? ` (${builds.length === 1 ? 'build' : 'builds'} ${list(builds)})` : '') +
    (nodes.length ? ` on ${plural(nodes.length, 'node')}` : '') +
    (controlNames.length ? `; passing controls ${list(controlNames)}` : past)
  );
}
