/**
 * The /metrics reads that agree with the stall board (docs/design.md#metrics):
 * runs per CI job (`ci_pipeline`, `ci_step`) and outcome, by the board's rule
 * (shared/stalls/stallBoard.ts `runOutcome`: stalled = any stall evidence — a
 * stack or a first structural timeout — whatever the verdict; passed; failed
 * otherwise), and the phase-only fingerprints of runs whose only evidence is
 * a first timeout. Capped as the other reads are (store/common/metricsQueries.ts):
 * the `max` pipelines with the most runs keep their series, the rest are summed
 * per outcome with null labels (`other` in the exposition).
 */
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import type { StallscopeDb } from './schema.ts';

/** The label value of an unset `ci_pipeline`, `ci_step` or `ci_node`: never an empty label. */
export const UNSET_LABEL = 'none';

export interface JobRunsRow {
  pipeline: string | null;
  step: string | null;
  outcome: string;
  runs: number;
}

/** Stall reports that are evidence: captures that read no stack are not (as on the board). */
const STACK_EVIDENCE = sql`EXISTS (SELECT 1 FROM stall_reports s WHERE s.run_id = r.id AND s.fingerprint IS NOT NULL
  AND NOT (s.worker_id = -1 AND s.report_json LIKE '%"stackError"%'))`;

/** A run's outcome on the board (shared/stalls/stallBoard.ts `runOutcome`), on runs `r`. */
const OUTCOME = sql<string>`CASE WHEN ${STACK_EVIDENCE} OR r.first_timeout_json IS NOT NULL THEN 'stalled'
  WHEN r.verdict = 'passed' THEN 'passed' ELSE 'failed' END`;

const JOINS = sql`LEFT JOIN run_metadata p ON p.run_id = r.id AND p.key = 'ci_pipeline'
  LEFT JOIN run_metadata st ON st.run_id = r.id AND st.key = 'ci_step'`;

const count = (n: unknown) => Number(n);

/** Runs per job and outcome: the `max` pipelines with the most runs (runs without one are one value), the rest summed. */
export async function jobRunsByOutcome(db: Kysely<StallscopeDb>, max: number): Promise<JobRunsRow[]> {
  const [top, named, byOutcome] = await Promise.all([
    // Grouped in the order of the (key, value) index; only `max` rows are kept by the sort.
    db
      .selectFrom('run_metadata')
      .where('key', '=', 'ci_pipeline')
      .select(['value', (eb) => eb.fn.countAll().as('n')])
      .groupBy('value')
      .orderBy('n', 'desc')
      .orderBy('value')
      .limit(max)
      .execute(),
    db
      .selectFrom('run_metadata')
      .where('key', '=', 'ci_pipeline')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst(),
    sql<{
      outcome: string;
      n: unknown;
    }>`SELECT o.outcome, COUNT(*) AS n FROM (SELECT ${OUTCOME} AS outcome FROM runs r) o
      GROUP BY o.outcome`.execute(db),
  ]);
  const total = byOutcome.rows.reduce((a, r) => a + count(r.n), 0);
  const unset = total - count(named?.n ?? 0);
  const ranked = [...top.map((r) => ({ value: r.value, n: count(r.n) })), { value: null, n: unset }]
    .filter((r) => r.n > 0)
    .sort((x, y) => y.n - x.n)
    .slice(0, max);
  const kept = ranked.map((r) => r.value).filter((v): v is string => v !== null);
  const where: RawBuilder<unknown>[] = [];
  if (kept.length > 0) where.push(sql`p.value IN (${sql.join(kept)})`);
  if (ranked.some((r) => r.value === null)) where.push(sql`p.value IS NULL`);
  const rows: JobRunsRow[] = [];
  if (where.length > 0) {
    const split = await sql<{ pipeline: string | null; step: string | null; outcome: string; n: unknown }>`
      SELECT j.pipeline, j.step, j.outcome, COUNT(*) AS n FROM (
        SELECT p.value AS pipeline, st.value AS step, ${OUTCOME} AS outcome FROM runs r ${JOINS}
        WHERE ${sql.join(where, sql` OR `)}
      ) j GROUP BY j.pipeline, j.step, j.outcome`.execute(db);
    for (const r of split.rows)
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

/** A first timeout's stored fingerprint and phase as text, in each database's JSON dialect. */
function timeoutFields(db: Kysely<StallscopeDb>): { fingerprint: RawBuilder<string>; phase: RawBuilder<string> } {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? {
        fingerprint: sql`(r.first_timeout_json::json #>> '{fingerprint,fingerprint}')`,
        phase: sql`(r.first_timeout_json::json #>> '{fingerprint,phase}')`,
      }
    : {
        fingerprint: sql`json_extract(r.first_timeout_json, '$.fingerprint.fingerprint')`,
        phase: sql`json_extract(r.first_timeout_json, '$.fingerprint.phase')`,
      };
}

/**
 * Runs whose only stall evidence is a first timeout, per its phase-only fingerprint, phase and `ci_node` (unset:
 * `none`): the board's phase-only groups. The `max` fingerprints with the most runs keep their rows, the rest summed
 * into one row of null labels.
 */
export async function timeoutOnlyRuns(
  db: Kysely<StallscopeDb>,
  max: number,
): Promise<{ fingerprint: string | null; phase: string | null; node: string | null; runs: number }[]> {
  const f = timeoutFields(db);
  const rows = await sql<{ fingerprint: string; phase: string; node: string | null; n: unknown }>`
    SELECT t.fingerprint, t.phase, t.node, COUNT(*) AS n FROM (
      SELECT ${f.fingerprint} AS fingerprint, ${f.phase} AS phase, m.value AS node FROM runs r
      LEFT JOIN run_metadata m ON m.run_id = r.id AND m.key = 'ci_node'
      WHERE r.first_timeout_json IS NOT NULL AND NOT ${STACK_EVIDENCE}
    ) t GROUP BY t.fingerprint, t.phase, t.node ORDER BY n DESC, t.fingerprint LIMIT ${max + 1}`.execute(db);
  const all = await sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM runs r
    WHERE r.first_timeout_json IS NOT NULL AND NOT ${STACK_EVIDENCE}`.execute(db);
  const kept = rows.rows.slice(0, max).map((r) => ({
    fingerprint: r.fingerprint,
    phase: r.phase,
    node: r.node ?? UNSET_LABEL,
    runs: count(r.n),
  }));
  const rest = count(all.rows[0]?.n ?? 0) - kept.reduce((a, r) => a + r.runs, 0);
  return rest > 0 ? [...kept, { fingerprint: null, phase: null, node: null, runs: rest }] : kept;
}
