/**
 * What GET /metrics reads from the database at scrape time
 * (docs/design.md#metrics), so its gauges are right after a restart and
 * agree across dashboards sharing one database. Written in Kysely for both
 * stores; counts go through `Number()` (pg returns them as strings).
 *
 * Labels that peers choose (`ci_pipeline`, `ci_node`, a stall's fingerprint
 * and phase) are capped where the query groups: the `max` values with the
 * most runs keep their labels, the rest are summed into rows whose labels are
 * null (`other` in the exposition), so a scrape reads a few hundred rows
 * whatever the cardinality, and the sums are kept. The top values are found
 * by grouping in an index's order with a LIMIT (a bounded sort): sorting
 * 100,000 distinct 400-character names, or numbering them with a window,
 * costs SQLite a second.
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import { jobRunsByOutcome, timeoutOnlyRuns, UNSET_LABEL, type JobRunsRow } from './jobRunQueries.ts';
import type { StallscopeDb } from './schema.ts';

/**
 * Values of a peer's label a read keeps (the pipelines, the fingerprints with the most runs). Times the six
 * verdicts it stays under the exposition's own cap of 500 series a family (metrics/seriesCap.ts).
 */
export const MAX_GROUPS = 50;

export interface MetricsQueries {
  /** Runs per verdict (`none` while running or without one) and `ci_pipeline` (`none` when unset); null: the rest. */
  runsByVerdictAndPipeline(): Promise<{ verdict: string; pipeline: string | null; runs: number }[]>;
  /** Runs per CI job (`none` for an unset pipeline or step) and the board's outcome; null labels: the rest. */
  jobRunsByOutcome(): Promise<JobRunsRow[]>;
  /**
   * Runs per stall fingerprint, phase and `ci_node` (`none` when unset), as the board groups them: a run counts
   * once per fingerprint of its stacks, or once under its first timeout's phase-only fingerprint when it has no
   * stack; null labels: the groups past the largest, summed.
   */
  stallRunsByFingerprintAndNode(): Promise<
    { fingerprint: string | null; phase: string | null; node: string | null; runs: number }[]
  >;
  /** Runs per status and source (`running` ones are in progress). */
  runsByStatusAndSource(): Promise<{ status: string; source: string; runs: number }[]>;
  /** Events numbered in the store over all runs (pruning does not lower it; deleting a run does). */
  eventsNumbered(): Promise<number>;
  /** Runs pinned, and runs whose rows retention pruned. */
  retentionCounts(): Promise<{ pinned: number; pruned: number }>;
}

/** Stall reports that are evidence: captures that read no stack are not (as on the board). */
function stallEvidence(db: Kysely<StallscopeDb>) {
  return db
    .selectFrom('stall_reports as s')
    .where('s.fingerprint', 'is not', null)
    .where((eb) => eb.not(eb.and([eb('s.worker_id', '=', -1), eb('s.report_json', 'like', '%"stackError"%')])));
}

export class KyselyMetricsQueries implements MetricsQueries {
  constructor(
    private readonly db: Kysely<StallscopeDb>,
    private readonly max = MAX_GROUPS,
  ) {}

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
