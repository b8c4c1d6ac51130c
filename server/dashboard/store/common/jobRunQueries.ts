/**
 * The /metrics reads by job and by the board's evidence (docs/design.md#metrics):
 * which pipelines keep their own series (the `max` with the most runs; the
 * rest are summed with null labels, `other` in the exposition), and the
 * phase-only fingerprints of runs whose only evidence is a first timeout —
 * the board's phase-only groups. Read from `run_labels` and `stall_facts`
 * (store/common/metricsQueries.ts, which counts runs per job and the board's
 * outcome, shared/stalls/stallBoard.ts `runOutcome`).
 */
import type { Kysely } from 'kysely';
import type { StallscopeDb } from './schema.ts';

/** The label value of an unset `ci_pipeline`, `ci_step` or `ci_node`: never an empty label. */
export const UNSET_LABEL = 'none';

export interface JobRunsRow {
  pipeline: string | null;
  step: string | null;
  outcome: string;
  runs: number;
}

const count = (n: unknown) => Number(n);

/**
 * The `max` pipelines with the most runs, most first (ties by name; runs without one are one value, null, ranked as
 * the empty name). Grouped in the order of `run_labels_job`; only `max + 1` groups are kept by the sort — the null
 * group may sort apart from where the empty name ranks, so one more than kept covers it.
 */
export async function topPipelines(db: Kysely<StallscopeDb>, max: number): Promise<(string | null)[]> {
  const top = await db
    .selectFrom('run_labels')
    .select(['pipeline', (eb) => eb.fn.countAll().as('n')])
    .groupBy('pipeline')
    .orderBy('n', 'desc')
    .orderBy('pipeline')
    .limit(max + 1)
    .execute();
  return top
    .map((r) => ({ value: r.pipeline, n: count(r.n) }))
    .sort((x, y) => y.n - x.n || ((x.value ?? '') < (y.value ?? '') ? -1 : 1))
    .slice(0, max)
    .map((r) => r.value);
}

/**
 * Runs whose only stall evidence is a first timeout (a `timeout` fact and no `stack` one), per its phase-only
 * fingerprint, phase and `ci_node` (unset: `none`): the board's phase-only groups. The `max` fingerprints with the
 * most runs keep their rows, the rest summed into one row of null labels.
 */
export async function timeoutOnlyRuns(
  db: Kysely<StallscopeDb>,
  max: number,
): Promise<{ fingerprint: string | null; phase: string | null; node: string | null; runs: number }[]> {
  const only = db
    .selectFrom('stall_facts as f')
    .where('f.kind', '=', 'timeout')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('stall_facts as s')
            .select('s.run_id')
            .whereRef('s.run_id', '=', 'f.run_id')
            .where('s.kind', '=', 'stack'),
        ),
      ),
    );
  const [rows, all] = await Promise.all([
    only
      .innerJoin('run_labels as l', 'l.run_id', 'f.run_id')
      .select(['f.fingerprint', 'f.phase', 'l.node', (eb) => eb.fn.countAll().as('n')])
      .groupBy(['f.fingerprint', 'f.phase', 'l.node'])
      .orderBy('n', 'desc')
      .orderBy('f.fingerprint')
      .limit(max + 1)
      .execute(),
    only.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
  ]);
  const kept = rows.slice(0, max).map((r) => ({
    fingerprint: r.fingerprint,
    phase: r.phase,
    node: r.node ?? UNSET_LABEL,
    runs: count(r.n),
  }));
  const rest = count(all?.n ?? 0) - kept.reduce((a, r) => a + r.runs, 0);
  return rest > 0 ? [...kept, { fingerprint: null, phase: null, node: null, runs: rest }] : kept;
}
