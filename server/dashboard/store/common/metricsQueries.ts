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
import { runOutcome } from '../../../../shared/stalls/stallBoard.ts';
import { timeoutOnlyRuns, topPipelines, UNSET_LABEL, type JobRunsRow } from './jobRunQueries.ts';
import type { StallscopeDb } from './schema.ts';

/**
 * Values of a peer's label a read keeps (the pipelines, the fingerprints with the most runs). Times the six
 * verdicts it stays under the exposition's own cap of 500 series a family (metrics/seriesCap.ts).
 */
export const MAX_GROUPS = 50;

/** What one scrape reads of the database: every family's rows, read together. */
export interface MetricsRead {
  byVerdict: Awaited<ReturnType<MetricsQueries['runsByVerdictAndPipeline']>>;
  jobRuns: JobRunsRow[];
  byStatus: Awaited<ReturnType<MetricsQueries['runsByStatusAndSource']>>;
  stalls: Awaited<ReturnType<MetricsQueries['stallRunsByFingerprintAndNode']>>;
  events: number;
  retention: { pinned: number; pruned: number };
}

/** A scrape's reads of `q`, issued together (the families that share a pass share its statement). */
export async function readEach(q: MetricsQueries): Promise<MetricsRead> {
  const [byVerdict, jobRuns, byStatus, stalls, events, retention] = await Promise.all([
    q.runsByVerdictAndPipeline(),
    q.jobRunsByOutcome(),
    q.runsByStatusAndSource(),
    q.stallRunsByFingerprintAndNode(),
    q.eventsNumbered(),
    q.retentionCounts(),
  ]);
  return { byVerdict, jobRuns, byStatus, stalls, events, retention };
}

/** Runs `read` in one read-only snapshot on one connection (PostgreSQL's store gives one). */
export type OneRead = <T>(read: (db: Kysely<StallscopeDb>) => Promise<T>) => Promise<T>;

export interface MetricsQueries {
  /**
   * Every family of a scrape (`readEach`); where the store gives a snapshot (PostgreSQL), in it: the families
   * agree with each other, and a scrape holds one of the pool's connections, not one per statement (eight at once,
   * each new one a backend to start and its catalog to read: a cold scrape's cost).
   */
  readAll(): Promise<MetricsRead>;
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

/** Runs per status, source, verdict and stalled, with their events numbered, pinned and pruned: one pass. */
interface Totals {
  status: string;
  source: string;
  verdict: string | null;
  stalled: number;
  runs: number;
  events: number;
  pinned: number;
  pruned: number;
}

/** Runs of the kept pipelines (null: without one) per step, verdict and stalled: one pass. */
interface JobSplit {
  pipeline: string | null;
  step: string | null;
  verdict: string | null;
  stalled: number;
  runs: number;
}

/** Sums `runs` by a key, in first-seen order. */
function sumBy<T extends { runs: number }>(
  rows: readonly T[],
  key: (r: T) => string,
): Map<string, { row: T; runs: number }> {
  const out = new Map<string, { row: T; runs: number }>();
  for (const r of rows) {
    const k = key(r);
    const had = out.get(k);
    if (had) had.runs += r.runs;
    else out.set(k, { row: r, runs: r.runs });
  }
  return out;
}

export class KyselyMetricsQueries implements MetricsQueries {
  /** Reads under way: a scrape asks for its families together, and those that share a pass share its statement. */
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Kysely<StallscopeDb>,
    private readonly max = MAX_GROUPS,
    private readonly oneRead: OneRead | null = null,
  ) {}

  readAll(): Promise<MetricsRead> {
    const { oneRead } = this;
    return oneRead ? oneRead((trx) => readEach(new KyselyMetricsQueries(trx, this.max))) : readEach(this);
  }

  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const had = this.inflight.get(key) as Promise<T> | undefined;
    if (had) return had;
    const p = read().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private totals(): Promise<Totals[]> {
    return this.shared('totals', async () => {
      const rows = await this.db
        .selectFrom('run_labels')
        .select((eb) => [
          'status',
          'source',
          'verdict',
          'stalled',
          eb.fn.countAll().as('n'),
          eb.fn.sum<number | string | null>('last_seq').as('events'),
          eb.fn.sum<number | string | null>('pinned').as('pinned'),
          eb.fn.sum<number | string | null>('pruned').as('pruned'),
        ])
        .groupBy(['status', 'source', 'verdict', 'stalled'])
        .execute();
      return rows.map((r) => ({
        status: r.status,
        source: r.source,
        verdict: r.verdict,
        stalled: Number(r.stalled),
        runs: Number(r.n),
        events: Number(r.events ?? 0),
        pinned: Number(r.pinned ?? 0),
        pruned: Number(r.pruned ?? 0),
      }));
    });
  }

  /** The `max` pipelines with the most runs (null: runs without one), split by step, verdict and stalled. */
  private jobSplit(): Promise<JobSplit[]> {
    return this.shared('jobs', async () => {
      const ranked = await topPipelines(this.db, this.max);
      if (ranked.length === 0) return [];
      const kept = ranked.filter((v): v is string => v !== null);
      const rows = await this.db
        .selectFrom('run_labels')
        .select(['pipeline', 'step', 'verdict', 'stalled', (eb) => eb.fn.countAll().as('n')])
        .where((eb) => {
          const or = [];
          if (kept.length > 0) or.push(eb('pipeline', 'in', kept));
          if (ranked.includes(null)) or.push(eb('pipeline', 'is', null));
          return eb.or(or);
        })
        .groupBy(['pipeline', 'step', 'verdict', 'stalled'])
        .execute();
      return rows.map((r) => ({ ...r, stalled: Number(r.stalled), runs: Number(r.n) }));
    });
  }

  /** The `max` pipelines with the most runs keep their own series per verdict; the rest are summed per verdict. */
  async runsByVerdictAndPipeline(): Promise<{ verdict: string; pipeline: string | null; runs: number }[]> {
    const [totals, split] = await Promise.all([this.totals(), this.jobSplit()]);
    const rows: { verdict: string; pipeline: string | null; runs: number }[] = [
      ...sumBy(split, (r) => JSON.stringify([r.verdict, r.pipeline])).values(),
    ].map(({ row, runs }) => ({
      verdict: row.verdict ?? 'none',
      pipeline: row.pipeline ?? UNSET_LABEL,
      runs,
    }));
    // What the kept series do not hold, per verdict: the rest of the pipelines.
    for (const { row, runs } of sumBy(totals, (r) => r.verdict ?? 'none').values()) {
      const verdict = row.verdict ?? 'none';
      const rest = runs - rows.reduce((a, r) => a + (r.verdict === verdict ? r.runs : 0), 0);
      if (rest > 0) rows.push({ verdict, pipeline: null, runs: rest });
    }
    return rows;
  }

  /** Runs per job and the board's outcome: the kept pipelines' series, the rest summed per outcome. */
  async jobRunsByOutcome(): Promise<JobRunsRow[]> {
    const [totals, split] = await Promise.all([this.totals(), this.jobSplit()]);
    const outcome = (r: { stalled: number; verdict: string | null }) => runOutcome(r.stalled === 1, r.verdict);
    const rows: JobRunsRow[] = [...sumBy(split, (r) => JSON.stringify([r.pipeline, r.step, outcome(r)])).values()].map(
      ({ row, runs }) => ({
        pipeline: row.pipeline ?? UNSET_LABEL,
        step: row.step ?? UNSET_LABEL,
        outcome: outcome(row),
        runs,
      }),
    );
    for (const { row, runs } of sumBy(totals, outcome).values()) {
      const o = outcome(row);
      const rest = runs - rows.reduce((a, r) => a + (r.outcome === o ? r.runs : 0), 0);
      if (rest > 0) rows.push({ pipeline: null, step: null, outcome: o, runs: rest });
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

  /** The run's own status and source (values the dashboard writes, a few). */
  async runsByStatusAndSource(): Promise<{ status: string; source: string; runs: number }[]> {
    return [...sumBy(await this.totals(), (r) => JSON.stringify([r.status, r.source])).values()].map(
      ({ row, runs }) => ({ status: row.status, source: row.source, runs }),
    );
  }

  async eventsNumbered(): Promise<number> {
    return (await this.totals()).reduce((a, r) => a + r.events, 0);
  }

  async retentionCounts(): Promise<{ pinned: number; pruned: number }> {
    const t = await this.totals();
    return { pinned: t.reduce((a, r) => a + r.pinned, 0), pruned: t.reduce((a, r) => a + r.pruned, 0) };
  }
}
