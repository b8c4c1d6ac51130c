/**
 * The oracle for /metrics' database reads (test/server/dashboard/metrics/metricsSummary.test.ts): the same counts
 * recounted from the runs' own rows, their metadata and their stall reports — the queries of 0.1.x, before the
 * scrape read `run_labels` and `stall_facts` (store/common/metricsQueries.ts). What the summary says must be what a
 * recount says, after inserts, updates, deletes and retention.
 */
import { PostgresAdapter, sql, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import type { StallscopeDb } from '#server/dashboard/store/common/schema.ts';
import { MAX_GROUPS, readEach, type MetricsQueries } from '#server/dashboard/store/common/metricsQueries.ts';
import { UNSET_LABEL, type JobRunsRow } from '#server/dashboard/store/common/jobRunQueries.ts';

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
async function jobRunsByOutcome(db: Kysely<StallscopeDb>, max: number): Promise<JobRunsRow[]> {
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
async function timeoutOnlyRuns(
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

/** Stall reports that are evidence: captures that read no stack are not (as on the board). */
function stallEvidence(db: Kysely<StallscopeDb>) {
  return db
    .selectFrom('stall_reports as s')
    .where('s.fingerprint', 'is not', null)
    .where((eb) => eb.not(eb.and([eb('s.worker_id', '=', -1), eb('s.report_json', 'like', '%"stackError"%')])));
}

export class RecountMetricsQueries implements MetricsQueries {
  constructor(
    private readonly db: Kysely<StallscopeDb>,
    private readonly max = MAX_GROUPS,
  ) {}

  readAll() {
    return readEach(this);
  }

  /**
   * The `max` pipelines with the most runs keep their own series per verdict; the rest are summed per verdict
   * (null pipeline). Each read streams an index or groups a handful of values: none sorts the pipelines' names.
   */
  async runsByVerdictAndPipeline(): Promise<{ verdict: string; pipeline: string | null; runs: number }[]> {
    const meta = this.db.selectFrom('run_metadata').where('key', '=', 'ci_pipeline');
    const [top, named, byVerdict] = await Promise.all([
      // Grouped in the order of the (key, value) index; only `max` rows are kept by the sort.
      meta
        .select(['value', (eb) => eb.fn.countAll().as('n')])
        .groupBy('value')
        .orderBy('n', 'desc')
        .orderBy('value')
        .limit(this.max)
        .execute(),
      meta.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
      this.db
        .selectFrom('runs')
        .select(['verdict', (eb) => eb.fn.countAll().as('n')])
        .groupBy('verdict')
        .execute(),
    ]);
    const total = byVerdict.reduce((a, r) => a + Number(r.n), 0);
    // Runs without a pipeline are one value among the others ('').
    const unset = total - Number(named?.n ?? 0);
    const ranked = [...top.map((r) => ({ value: r.value, n: Number(r.n) })), { value: '', n: unset }]
      .filter((r) => r.n > 0)
      .sort((x, y) => y.n - x.n || (x.value < y.value ? -1 : 1))
      .slice(0, this.max);
    const kept = ranked.map((r) => r.value).filter((v) => v !== '');
    const rows: { verdict: string; pipeline: string | null; runs: number }[] = [];
    if (kept.length > 0) {
      const split = await this.db
        .selectFrom('run_metadata as m')
        .innerJoin('runs as r', 'r.id', 'm.run_id')
        .select(['r.verdict', 'm.value', (eb) => eb.fn.countAll().as('n')])
        .where('m.key', '=', 'ci_pipeline')
        .where('m.value', 'in', kept)
        .groupBy(['r.verdict', 'm.value'])
        .execute();
      for (const r of split) rows.push({ verdict: r.verdict ?? 'none', pipeline: r.value, runs: Number(r.n) });
    }
    if (ranked.some((r) => r.value === '')) {
      const split = await this.db
        .selectFrom('runs as r')
        .select(['r.verdict', (eb) => eb.fn.countAll().as('n')])
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('run_metadata as m')
                .select('m.key')
                .whereRef('m.run_id', '=', 'r.id')
                .where('m.key', '=', 'ci_pipeline'),
            ),
          ),
        )
        .groupBy('r.verdict')
        .execute();
      for (const r of split) rows.push({ verdict: r.verdict ?? 'none', pipeline: UNSET_LABEL, runs: Number(r.n) });
    }
    // What the kept series do not hold, per verdict: the rest of the pipelines.
    for (const v of byVerdict) {
      const verdict = v.verdict ?? 'none';
      const rest = Number(v.n) - rows.reduce((a, r) => a + (r.verdict === verdict ? r.runs : 0), 0);
      if (rest > 0) rows.push({ verdict, pipeline: null, runs: rest });
    }
    return rows;
  }

  /**
   * The `max` fingerprints on the most runs, split by phase and node into at most `max` series (the largest);
   * the rest summed into one series of null labels. The fingerprints are grouped in their index's order.
   */
  async stallRunsByFingerprintAndNode(): Promise<
    { fingerprint: string | null; phase: string | null; node: string | null; runs: number }[]
  > {
    const runs = (eb: ExpressionBuilder<{ s: StallscopeDb['stall_reports'] }, 's'>) =>
      eb.fn.count('s.run_id').distinct().as('n');
    const [top, total] = await Promise.all([
      stallEvidence(this.db)
        .select(['s.fingerprint', runs])
        .groupBy('s.fingerprint')
        .orderBy('n', 'desc')
        .orderBy('s.fingerprint')
        .limit(this.max)
        .execute(),
      this.db
        .selectFrom(stallEvidence(this.db).select(runs).groupBy('s.fingerprint').as('f'))
        .select((eb) => eb.fn.sum<number | string | null>('f.n').as('n'))
        .executeTakeFirst(),
    ]);
    const kept = top.map((r) => r.fingerprint).filter((f): f is string => f !== null);
    const rows: { fingerprint: string | null; phase: string | null; node: string | null; runs: number }[] = [];
    if (kept.length > 0) {
      const split = await stallEvidence(this.db)
        .leftJoin('run_metadata as m', (j) => j.onRef('m.run_id', '=', 's.run_id').on('m.key', '=', 'ci_node'))
        .select(['s.fingerprint', 's.phase', 'm.value as node', runs])
        .where('s.fingerprint', 'in', kept)
        .groupBy(['s.fingerprint', 's.phase', 'm.value'])
        .orderBy('n', 'desc')
        .orderBy('s.fingerprint')
        .orderBy('s.phase')
        .orderBy('m.value')
        .limit(this.max)
        .execute();
      for (const r of split)
        rows.push({ fingerprint: r.fingerprint, phase: r.phase, node: r.node ?? UNSET_LABEL, runs: Number(r.n) });
    }
    const rest = Number(total?.n ?? 0) - rows.reduce((a, r) => a + r.runs, 0);
    if (rest > 0) rows.push({ fingerprint: null, phase: null, node: null, runs: rest });
    // Runs with only a first timeout: the board's phase-only groups (their own cap; the exposition caps the sum).
    return [...rows, ...(await timeoutOnlyRuns(this.db, this.max))];
  }

  jobRunsByOutcome(): Promise<JobRunsRow[]> {
    return jobRunsByOutcome(this.db, this.max);
  }

  /** The run's own status and source (values the dashboard writes, a few): grouped as they are. */
  async runsByStatusAndSource(): Promise<{ status: string; source: string; runs: number }[]> {
    const rows = await this.db
      .selectFrom('runs')
      .select(['status', 'source', (eb) => eb.fn.countAll().as('n')])
      .groupBy(['status', 'source'])
      .execute();
    return rows.map((r) => ({ status: r.status, source: r.source, runs: Number(r.n) }));
  }

  async eventsNumbered(): Promise<number> {
    const r = await this.db
      .selectFrom('runs')
      .select((eb) => eb.fn.sum<number | string | null>('last_seq').as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async retentionCounts(): Promise<{ pinned: number; pruned: number }> {
    const r = await this.db
      .selectFrom('runs')
      .select((eb) => [
        eb.fn.countAll().filterWhere('pinned', '=', 1).as('pinned'),
        eb.fn.countAll().filterWhere('pruned_at_ms', 'is not', null).as('pruned'),
      ])
      .executeTakeFirst();
    return { pinned: Number(r?.pinned ?? 0), pruned: Number(r?.pruned ?? 0) };
  }
}
