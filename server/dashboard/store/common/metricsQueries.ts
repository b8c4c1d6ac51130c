/**
 * What GET /metrics reads from the database at scrape time
 * (docs/design.md#metrics), so its gauges are right after a restart and
 * agree across dashboards sharing one database. Written in Kysely for both
 * stores; counts go through `Number()` (pg returns them as strings).
 */
import type { Kysely } from 'kysely';
import type { StallscopeDb } from './schema.ts';

/** The most fingerprint × node series one scrape exports: the most frequent (a label set per series costs Prometheus). */
export const MAX_STALL_SERIES = 500;

export interface MetricsQueries {
  /** Runs per verdict (`none` while running or without one) and `ci_pipeline` (`''` when unset). */
  runsByVerdictAndPipeline(): Promise<{ verdict: string; pipeline: string; runs: number }[]>;
  /** Runs with stack evidence per fingerprint and `ci_node` (a run counts once per fingerprint, as on the board). */
  stallRunsByFingerprintAndNode(): Promise<{ fingerprint: string; phase: string; node: string; runs: number }[]>;
  /** Runs per status and source (`running` ones are in progress). */
  runsByStatusAndSource(): Promise<{ status: string; source: string; runs: number }[]>;
  /** Events numbered in the store over all runs (pruning does not lower it; deleting a run does). */
  eventsNumbered(): Promise<number>;
  /** Runs pinned, and runs whose rows retention pruned. */
  retentionCounts(): Promise<{ pinned: number; pruned: number }>;
}

export class KyselyMetricsQueries implements MetricsQueries {
  constructor(private readonly db: Kysely<StallscopeDb>) {}

  async runsByVerdictAndPipeline(): Promise<{ verdict: string; pipeline: string; runs: number }[]> {
    const rows = await this.db
      .selectFrom('runs as r')
      .leftJoin('run_metadata as m', (j) => j.onRef('m.run_id', '=', 'r.id').on('m.key', '=', 'ci_pipeline'))
      .select(['r.verdict', 'm.value as pipeline', (eb) => eb.fn.countAll().as('n')])
      .groupBy(['r.verdict', 'm.value'])
      .execute();
    return rows.map((r) => ({ verdict: r.verdict ?? 'none', pipeline: r.pipeline ?? '', runs: Number(r.n) }));
  }

  async stallRunsByFingerprintAndNode(): Promise<{ fingerprint: string; phase: string; node: string; runs: number }[]> {
    const rows = await this.db
      .selectFrom('stall_reports as s')
      .leftJoin('run_metadata as m', (j) => j.onRef('m.run_id', '=', 's.run_id').on('m.key', '=', 'ci_node'))
      .select(['s.fingerprint', 's.phase', 'm.value as node', (eb) => eb.fn.count('s.run_id').distinct().as('n')])
      .where('s.fingerprint', 'is not', null)
      // Rows stored before captures that read no stack were left out are not evidence (as on the board).
      .where((eb) => eb.not(eb.and([eb('s.worker_id', '=', -1), eb('s.report_json', 'like', '%"stackError"%')])))
      .groupBy(['s.fingerprint', 's.phase', 'm.value'])
      .orderBy('n', 'desc')
      .orderBy('s.fingerprint')
      .limit(MAX_STALL_SERIES)
      .execute();
    return rows.map((r) => ({
      fingerprint: r.fingerprint ?? '',
      phase: r.phase,
      node: r.node ?? '',
      runs: Number(r.n),
    }));
  }

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
