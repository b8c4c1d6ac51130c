/**
 * `GET /api/stalls`: the stall board (docs/design.md#stall-board). One group
 * per fingerprint (shared/stalls/stallBoard.ts groups them), each with the strip of
 * every CI job it occurred in (the job's last runs by node, hang rates, the
 * sentence) and, per occurrence, the nearest passing control to compare with.
 * The schema is the reply's contract; `buildBoard` is the pure rule that fills it.
 *
 * Its fields are camelCase like the rest of the API. The snake_case names it
 * answered with before (`first_seen`, `last_seen`, `runs_considered`) are
 * still sent beside them, equal, for one release: deprecated, removed in
 * 0.2.0 (docs/design.md#stall-board). Readers here use `StallBoardReply`,
 * which does not name them, so removing them touches only this file.
 */
import { Type, type Static } from 'typebox';
import { groupStalls, isControl, jobStrip, patternSentence, type BoardRun, type StallGroup } from './stallBoard.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Strings = Type.Array(Type.String());

export const StripRunSchema = Type.Object({
  id: Type.String(),
  atMs: Type.Number(),
  build: Nullable(Type.String()),
  node: Nullable(Type.String()),
  outcome: Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('stalled')]),
  fingerprint: Nullable(Type.String()),
  label: Nullable(Type.String()),
});

export const JobBoardSchema = Type.Object({
  pipeline: Nullable(Type.String()),
  step: Nullable(Type.String()),
  /** The job's last runs, oldest first. */
  runs: Type.Array(StripRunSchema),
  nodes: Type.Array(
    Type.Object({ node: Type.String(), runs: Type.Integer(), stalled: Type.Integer(), hangRate: Type.Number() }),
  ),
  stalled: Type.Integer(),
  hangRate: Type.Number(),
  /** "fingerprint hift/_synchronize seen in 5 of the last 7 runs of …; passing controls …". */
  sentence: Type.String(),
});
export type JobBoard = Static<typeof JobBoardSchema>;

export const StallOccurrenceSchema = Type.Object({
  runId: Type.String(),
  atMs: Type.Number(),
  build: Nullable(Type.String()),
  node: Nullable(Type.String()),
  commit: Nullable(Type.String()),
  /** Where each piece of evidence is in the run: `w0-op3`, `capture-1`, `timeout-4` (its request). */
  refs: Strings,
  /** The passing run of the same job nearest in time, to compare with; null when the job has none. */
  control: Nullable(Type.String()),
});

const StallGroupFields = {
  fingerprint: Type.String(),
  phase: Type.String(),
  frames: Strings,
  label: Type.String(),
  /** Runs with this fingerprint (a run counts once). */
  occurrences: Type.Integer({ minimum: 1 }),
  runs: Strings,
  builds: Strings,
  nodes: Strings,
  commits: Strings,
  controls: Type.Object({ runs: Strings, builds: Strings }),
  /** Epoch ms of the first and last occurrence. */
  firstSeen: Type.Number(),
  lastSeen: Type.Number(),
  evidence: Type.Array(StallOccurrenceSchema),
  /** The CI jobs (pipeline and step) it occurred in; none for runs without CI metadata. */
  jobs: Type.Array(JobBoardSchema),
};
const StallGroupSchema = Type.Object(StallGroupFields);
export type StallGroupReply = Static<typeof StallGroupSchema>;

/** A deprecated snake_case alias: the same value as `of`, sent until 0.2.0. */
const alias = (of: string) =>
  Type.Number({ deprecated: true, description: `Deprecated: use ${of} (removed in 0.2.0).` });

const StallsReplyFields = {
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

const meta = (r: BoardRun, k: string): string | null => r.metadata[k] || null;
const jobKey = (p: string | null, s: string | null) => `${p ?? ''}\u0000${s ?? ''}`;

/**
 * Of `controls` (the passing runs of `r`'s job), the one nearest to `r` in time (either side), or null; of
 * two as near, the earlier (the last green run before it: what changed since is what to look at).
 */
function nearestControl(r: BoardRun, controls: readonly BoardRun[]): string | null {
  let best: BoardRun | null = null;
  for (const c of controls) {
    const d = Math.abs(c.atMs - r.atMs);
    const bestD = best === null ? Infinity : Math.abs(best.atMs - r.atMs);
    if (d < bestD || (d === bestD && c.atMs < best!.atMs)) best = c;
  }
  return best?.id ?? null;
}

/** A job's strip, computed once however many groups occurred in the job. */
type Strips = (pipeline: string | null, step: string | null) => ReturnType<typeof jobStrip>;

function withJobs(g: StallGroup, byId: Map<string, BoardRun>, strips: Strips) {
  const jobs = new Map<string, { pipeline: string | null; step: string | null }>();
  for (const id of g.runs) {
    const r = byId.get(id)!;
    const pipeline = meta(r, 'ci_pipeline');
    const step = meta(r, 'ci_step');
    if (pipeline !== null || step !== null) jobs.set(jobKey(pipeline, step), { pipeline, step });
  }
  return [...jobs.values()].map(({ pipeline, step }) => {
    const strip = strips(pipeline, step);
    return { ...strip, sentence: patternSentence(g, strip) };
  });
}

/** The board of `runs`: groups with their jobs' strips over the last `last` runs of each job. */
export function buildBoard(runs: readonly BoardRun[], last = 20): StallGroupReply[] {
  const byId = new Map(runs.map((r) => [r.id, r]));
  // Controls and runs by job, so each lookup reads one job's runs, not all of them.
  const byJob = new Map<string, BoardRun[]>();
  for (const r of runs) {
    const k = jobKey(meta(r, 'ci_pipeline'), meta(r, 'ci_step'));
    const list = byJob.get(k);
    if (list) list.push(r);
    else byJob.set(k, [r]);
  }
  const controlsByJob = new Map([...byJob].map(([k, rs]) => [k, rs.filter(isControl)]));
  const cache = new Map<string, ReturnType<typeof jobStrip>>();
  const strips: Strips = (pipeline, step) => {
    const k = jobKey(pipeline, step);
    let strip = cache.get(k);
    if (!strip) cache.set(k, (strip = jobStrip(byJob.get(k) ?? [], pipeline, step, last)));
    return strip;
  };
  return groupStalls(runs).map((g) => ({
    ...g,
    evidence: g.evidence.map((o) => {
      const r = byId.get(o.runId)!;
      const controls = controlsByJob.get(jobKey(meta(r, 'ci_pipeline'), meta(r, 'ci_step'))) ?? [];
      return { ...o, control: nearestControl(r, controls) };
    }),
    jobs: withJobs(g, byId, strips),
  }));
}
