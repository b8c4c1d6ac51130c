/**
 * The /metrics reads that agree with the stall board (docs/design.md#metrics):
 * runs per CI job (`ci_pipeline`, `ci_step`) and outcome, by the board's rule
 * (shared/stalls/stallBoard.ts `runOutcome`: stalled = any stall evidence — a
 * stack or a first structural timeout, i.e. a stall fact — whatever the
 * verdict; passed; failed otherwise), and the phase-only fingerprints of runs
 * whose only evidence is a first timeout. Read from `run_labels` and
 * `stall_facts` (store/common/metricsQueries.ts). Capped as the other reads
 * are: the `max` pipelines with the most runs keep their series, the rest are
 * summed per outcome with null labels (`other` in the exposition).
 */
import { sql, type Kysely } from 'kysely';
import type { StallscopeDb } from './schema.ts';

/** The label value of an unset `ci_pipeline`, `ci_step` or `ci_node`: never an empty label. */
export const UNSET_LABEL = 'none';

export interface JobRunsRow {
  pipeline: string | null;
  step: string | null;
  outcome: string;
  runs: number;
}

/** A run's outcome on the board (shared/stalls/stallBoard.ts `runOutcome`), on `run_labels`. */
const OUTCOME = sql<string>`CASE WHEN stalled = 1 THEN 'stalled' WHEN verdict = 'passed' THEN 'passed' ELSE 'failed' END`;

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

/** Runs per job and outcome: the `max` pipelines with the most runs (runs without one are one value), the rest summed. */
export async function jobRunsByOutcome(db: Kysely<StallscopeDb>, max: number): Promise<JobRunsRow[]> {
  const [ranked, byOutcome] = await Promise.all([
    topPipelines(db, max),
    sql<{ outcome: string; n: unknown }>`SELECT o.outcome, COUNT(*) AS n FROM (SELECT ${OUTCOME} AS outcome
      FROM run_labels) o GROUP BY o.outcome`.execute(db),
  ]);
  const kept = ranked.filter((v): v is string => v !== null);
  const rows: JobRunsRow[] = [];
  if (ranked.length > 0) {
    const split = await db
      .selectFrom('run_labels')
      .select(['pipeline', 'step', OUTCOME.as('outcome'), (eb) => eb.fn.countAll().as('n')])
      .where((eb) => {
        const or = [];
        if (kept.length > 0) or.push(eb('pipeline', 'in', kept));
        if (ranked.includes(null)) or.push(eb('pipeline', 'is', null));
        return eb.or(or);
      })
      .groupBy(['pipeline', 'step', 'outcome'])
      .execute();
    for (const r of split)
      rows.push({
        pipeline: r.pipeline ?? UNSET_LABEL,
        step: r.step ?? UNSET_LABEL,
        outcome: r.outcome,
        runs: count(r.n),
      });
  }
  // What the kept series do not hold, per outcome: the rest of the pipelines.
  for (const o of byOutcome.rows) {
    const rest = count(o.n) - rows.reduce((a, r) => a + (r.outcome === o.outcome ? r.runs : 0), 0);
    if (rest > 0) rows.push({ pipeline: null, step: null, outcome: o.outcome, runs: rest });
  }
  return rows;
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
