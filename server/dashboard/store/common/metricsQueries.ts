/**
 * What GET /metrics reads from the database at scrape time
 * (docs/design.md#metrics), so its gauges are right after a restart and
 * agree across dashboards sharing one database. Written in Kysely for both
 * stores; counts go through `Number()` (pg returns them as strings).
 *
 * Every read is of `run_labels` (one narrow row per run: its status, source,
 * verdict, job, node, stalled, pinned, pruned, events numbered) and
 * `stall_facts` (a row per run and fingerprint of its evidence), both kept
 * by triggers wherever runs, their metadata and their evidence are written —
 * never of the runs' own rows, their metadata or their stall reports' JSON,
 * which cost a scrape 0.5 s (PostgreSQL) to 3.3 s (SQLite) at a year of
 * history (docs/performance.md#year-of-history).
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
import type { Kysely } from 'kysely';
import { jobRunsByOutcome, timeoutOnlyRuns, topPipelines, UNSET_LABEL, type JobRunsRow } from './jobRunQueries.ts';
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

export class KyselyMetricsQueries implements MetricsQueries {
  constructor(
    private readonly db: Kysely<StallscopeDb>,
    private readonly max = MAX_GROUPS,
  ) {}

  /** The `max` pipelines with the most runs keep their own series per verdict; the rest are summed per verdict. */
  async runsByVerdictAndPipeline(): Promise<{ verdict: string; pipeline: string | null; runs: number }[]> {
    const [ranked, byVerdict] = await Promise.all([
      topPipelines(this.db, this.max),
      this.db
        .selectFrom('run_labels')
        .select(['verdict', (eb) => eb.fn.countAll().as('n')])
        .groupBy('verdict')
        .execute(),
    ]);
    const kept = ranked.filter((v): v is string => v !== null);
    const rows: { verdict: string; pipeline: string | null; runs: number }[] = [];
    if (ranked.length > 0) {
      const split = await this.db
        .selectFrom('run_labels')
        .select(['verdict', 'pipeline', (eb) => eb.fn.countAll().as('n')])
        .where((eb) => {
          const or = [];
          if (kept.length > 0) or.push(eb('pipeline', 'in', kept));
          if (ranked.includes(null)) or.push(eb('pipeline', 'is', null));
          return eb.or(or);
        })
        .groupBy(['pipeline', 'verdict'])
        .execute();
      for (const r of split)
        rows.push({ verdict: r.verdict ?? 'none', pipeline: r.pipeline ?? UNSET_LABEL, runs: Number(r.n) });
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
   * the rest summed into one series of null labels. A stall fact of kind `stack` is one run and fingerprint.
   */
  async stallRunsByFingerprintAndNode(): Promise<
    { fingerprint: string | null; phase: string | null; node: string | null; runs: number }[]
  > {
    const stacks = this.db.selectFrom('stall_facts as f').where('f.kind', '=', 'stack');
    const [top, total] = await Promise.all([
      stacks
        .select(['f.fingerprint', (eb) => eb.fn.countAll().as('n')])
        .groupBy('f.fingerprint')
        .orderBy('n', 'desc')
        .orderBy('f.fingerprint')
        .limit(this.max)
        .execute(),
      stacks.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
    ]);
    const kept = top.map((r) => r.fingerprint);
    const rows: { fingerprint: string | null; phase: string | null; node: string | null; runs: number }[] = [];
    if (kept.length > 0) {
      const split = await stacks
        .innerJoin('run_labels as l', 'l.run_id', 'f.run_id')
        .select(['f.fingerprint', 'f.phase', 'l.node', (eb) => eb.fn.countAll().as('n')])
        .where('f.fingerprint', 'in', kept)
        .groupBy(['f.fingerprint', 'f.phase', 'l.node'])
        .orderBy('n', 'desc')
        .orderBy('f.fingerprint')
        .orderBy('f.phase')
        .orderBy('l.node')
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
      .selectFrom('run_labels')
      .select(['status', 'source', (eb) => eb.fn.countAll().as('n')])
      .groupBy(['status', 'source'])
      .execute();
    return rows.map((r) => ({ status: r.status, source: r.source, runs: Number(r.n) }));
  }

  async eventsNumbered(): Promise<number> {
    const r = await this.db
      .selectFrom('run_labels')
      .select((eb) => eb.fn.sum<number | string | null>('last_seq').as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async retentionCounts(): Promise<{ pinned: number; pruned: number }> {
    const r = await this.db
      .selectFrom('run_labels')
      .select((eb) => [
        eb.fn.sum<number | string | null>('pinned').as('pinned'),
        eb.fn.sum<number | string | null>('pruned').as('pruned'),
      ])
      .executeTakeFirst();
    return { pinned: Number(r?.pinned ?? 0), pruned: Number(r?.pruned ?? 0) };
  }
}
