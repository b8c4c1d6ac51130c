/**
 * `GET /api/stalls`: the stall board (docs/design.md#stall-board). One group
 * per scope (a CI job, or the runs without CI metadata) and fingerprint
 * (shared/stalls/stallBoard.ts groups them), each with its scope's strip (the
 * last runs by node, hang rates with Wilson intervals, the sentence), its
 * onset and, per occurrence, the nearest passing control to compare with.
 * The schema is the reply's contract; `buildBoard` is the pure rule that fills it.
 *
 * Its fields are camelCase like the rest of the API. The snake_case names it
 * answered with before (`first_seen`, `last_seen`, `runs_considered`) are
 * still sent beside them, equal, for one release: deprecated, removed in
 * 0.2.0 (docs/design.md#stall-board). Readers here use `StallBoardReply`,
 * which does not name them, so removing them touches only this file.
 */
import { Type, type Static } from 'typebox';
import { jobKey, jobOf, type BoardRun } from './boardRun.ts';
import { jobStrip, patternSentence, type JobStrip } from './jobStrip.ts';
import { groupStalls, isControl, nearestTo, type StallGroup } from './stallBoard.ts';

/** Which groups of the board a reply holds: the first `limit` (all when unset), one fingerprint's only. */
export interface BoardPick {
  limit?: number;
  fingerprint?: string;
}

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Strings = Type.Array(Type.String());

export const StripRunSchema = Type.Object({
  id: Type.String(),
  atMs: Type.Number(),
  build: Nullable(Type.String()),
  node: Nullable(Type.String()),
  outcome: Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('stalled')]),
  /** The run's first fingerprint, and all of them (a run can stall in two places). */
  fingerprint: Nullable(Type.String()),
  fingerprints: Strings,
  label: Nullable(Type.String()),
});

/** A rate's 95 % Wilson interval (shared/stalls/wilson.ts). */
const Interval = { low: Type.Number({ minimum: 0, maximum: 1 }), high: Type.Number({ minimum: 0, maximum: 1 }) };
const RateFields = { runs: Type.Integer(), stalled: Type.Integer(), hangRate: Type.Number(), ...Interval };
const RunRefSchema = Type.Object({
  runId: Type.String(),
  atMs: Type.Number(),
  build: Nullable(Type.String()),
  commit: Nullable(Type.String()),
});

export const JobBoardSchema = Type.Object({
  pipeline: Nullable(Type.String()),
  step: Nullable(Type.String()),
  /** The job's last runs, oldest first. */
  runs: Type.Array(StripRunSchema),
  /** Per node of the strip: its runs, the stalled ones (any fingerprint), the rate and its interval. */
  nodes: Type.Array(Type.Object({ node: Type.String(), ...RateFields })),
  stalled: Type.Integer(),
  hangRate: Type.Number(),
  ...Interval,
  /**
   * Every run of the job the board read, not only the strip's: unfiltered, `total.hangRate` is what
   * `sum by (pipeline, step) (stallscope_job_runs{outcome="stalled"}) / sum by (pipeline, step) (stallscope_job_runs)`
   * gives.
   */
  total: Type.Object(RateFields),
  /** The nearest passing control before the strip (when none is in it, the sentence names it) and how far. */
  priorControl: Nullable(
    Type.Object({ id: Type.String(), build: Nullable(Type.String()), runsBefore: Type.Integer({ minimum: 1 }) }),
  ),
  /** "fingerprint hift/_synchronize seen in 5 of the last 7 runs of …; passing controls …". */
  sentence: Type.String(),
});
export type JobBoard = Static<typeof JobBoardSchema>;

export const StallOccurrenceSchema = Type.Object({
  runId: Type.String(),
  atMs: Type.Number(),
  build: Nullable(Type.String()),
  /** The build's `ci_build_url` as reported (null: none); a reader links it only when http(s) (`ciBuildHref`). */
  buildUrl: Nullable(Type.String()),
  node: Nullable(Type.String()),
  commit: Nullable(Type.String()),
  /** Where each piece of evidence is in the run: `w0-op3`, `capture-1`, `timeout-4` (its request). */
  refs: Strings,
  /** The passing run of the same job nearest in time, to compare with; null when the job has none. */
  control: Nullable(Type.String()),
});

const StallGroupFields = {
  /** `job`: one CI job's runs (`pipeline`, `step`); `local`: the runs without CI metadata, shown apart. */
  scope: Type.Union([Type.Literal('job'), Type.Literal('local')]),
  pipeline: Nullable(Type.String()),
  step: Nullable(Type.String()),
  fingerprint: Type.String(),
  phase: Type.String(),
  frames: Strings,
  label: Type.String(),
  /** Runs of this scope with this fingerprint (a run counts once). */
  occurrences: Type.Integer({ minimum: 1 }),
  runs: Strings,
  builds: Strings,
  nodes: Strings,
  commits: Strings,
  /** Runs of the scope the board read; `occurrences` among them as a rate with its 95 % Wilson interval. */
  scopeRuns: Type.Integer({ minimum: 1 }),
  hangRate: Type.Number(),
  ...Interval,
  /** Per node of the scope: its runs, those with this fingerprint, the rate and its interval. */
  nodeRates: Type.Array(Type.Object({ node: Type.String(), ...RateFields })),
  controls: Type.Object({ runs: Strings, builds: Strings }),
  /** The range to bisect: the last passing control before the first occurrence (null: none), and that occurrence. */
  onset: Type.Object({ lastPassing: Nullable(RunRefSchema), firstStalled: RunRefSchema }),
  /** Epoch ms of the first and last occurrence. */
  firstSeen: Type.Number(),
  lastSeen: Type.Number(),
  evidence: Type.Array(StallOccurrenceSchema),
  /** Its scope's strip and sentence (one: a group is one scope; an array for the readers of 0.1). */
  jobs: Type.Array(JobBoardSchema),
};
const StallGroupSchema = Type.Object(StallGroupFields);
export type StallGroupReply = Static<typeof StallGroupSchema>;

/** A deprecated snake_case alias: the same value as `of`, sent until 0.2.0. */
const alias = (of: string) =>
  Type.Number({ deprecated: true, description: `Deprecated: use ${of} (removed in 0.2.0).` });

const StallsReplyFields = {
  /** Groups that matched (`groups` holds the first `limit` of them, in the board's order). */
  groupsTotal: Type.Integer({ minimum: 0 }),
  /** Runs read (the newest within the filter). */
  runsConsidered: Type.Integer(),
  /** More runs matched than were read: older ones were left out. */
  truncated: Type.Boolean(),
};

/** The board as this code reads it: the camelCase fields only. */
export const StallBoardReplySchema = Type.Object({ groups: Type.Array(StallGroupSchema), ...StallsReplyFields });
export type StallBoardReply = Static<typeof StallBoardReplySchema>;

/** The reply on the wire: the board with the deprecated aliases beside the fields they name. */
export const StallsReplySchema = Type.Object({
  groups: Type.Array(
    Type.Object({ ...StallGroupFields, first_seen: alias('firstSeen'), last_seen: alias('lastSeen') }),
  ),
  ...StallsReplyFields,
  runs_considered: alias('runsConsidered'),
});
export type StallsReply = Static<typeof StallsReplySchema>;

/** The reply for `board`, with the deprecated aliases (equal to the fields they name). */
export function stallsReply(board: StallBoardReply): StallsReply {
  return {
    ...board,
    groups: board.groups.map((g) => ({ ...g, first_seen: g.firstSeen, last_seen: g.lastSeen })),
    runs_considered: board.runsConsidered,
  };
}

/** A group with its occurrences' nearest controls (`controlOf`, by run id) and its scope's strip and sentence. */
export function groupReply(g: StallGroup, controlOf: (runId: string) => string | null, strip: JobStrip) {
  return {
    ...g,
    evidence: g.evidence.map((o) => ({ ...o, control: controlOf(o.runId) })),
    jobs: [{ ...strip, sentence: patternSentence(g, strip) }],
  } satisfies StallGroupReply;
}

/** The board of `runs`: groups per scope and fingerprint, with their scope's strip over its last `last` runs. */
export function buildBoard(runs: readonly BoardRun[], last = 20): StallGroupReply[] {
  const byId = new Map(runs.map((r) => [r.id, r]));
  // Runs and controls by scope, so each lookup reads one scope's runs, not all of them.
  const byScope = new Map<string, BoardRun[]>();
  for (const r of runs) {
    const k = jobKey(jobOf(r));
    const list = byScope.get(k);
    if (list) list.push(r);
    else byScope.set(k, [r]);
  }
  const controlsByScope = new Map([...byScope].map(([k, rs]) => [k, rs.filter(isControl)]));
  const strips = new Map<string, JobStrip>();
  const stripOfGroup = (g: StallGroup): JobStrip => {
    const k = jobKey(g);
    let strip = strips.get(k);
    if (!strip) strips.set(k, (strip = jobStrip(byScope.get(k) ?? [], g.pipeline, g.step, last)));
    return strip;
  };
  return groupStalls(runs).map((g) => {
    const controls = controlsByScope.get(jobKey(g)) ?? [];
    return groupReply(g, (id) => nearestTo(byId.get(id)!.atMs, controls)?.id ?? null, stripOfGroup(g));
  });
}
