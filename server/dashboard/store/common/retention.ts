/**
 * Retention's reads and writes (docs/design.md#retention): which runs' request
 * rows and events are due for pruning, the bounded deletes, and pinning.
 * What a pruned run keeps (its row: summary, verdict, state, metadata; its
 * result parts; its stall reports and first timeout) is never touched here.
 * Written in Kysely for both stores.
 */
import { sql, type Kysely } from 'kysely';
import type { StallscopeDb } from './schema.ts';

export interface RetentionPolicy {
  /** Runs that happened more than this many days ago are pruned; null = no age limit. */
  retainDays: number | null;
  /** Only the newest this many runs keep their rows; null = no count limit. */
  retainRuns: number | null;
}

/** The tables retention prunes, with the column that orders a run's rows. */
export const PRUNED_TABLES = { events: 'seq', requests: 'idx' } as const;
export type PrunedTable = keyof typeof PRUNED_TABLES;

export interface RetentionStore {
  /** Ended, unpinned, not yet pruned runs outside the policy, oldest first, at most `limit`. */
  dueRuns(policy: RetentionPolicy, nowMs: number, limit: number): Promise<string[]>;
  /** Deletes at most `max` of the run's rows of one table (its first ones); returns how many went. */
  pruneBatch(runId: string, table: PrunedTable, max: number): Promise<number>;
  markPruned(runId: string, nowMs: number): Promise<void>;
  /** False when there is no such run. */
  setPinned(runId: string, pinned: boolean): Promise<boolean>;
  retentionFacts(runId: string): Promise<{ pinned: boolean; prunedAtMs: number | null } | null>;
}

const DAY_MS = 86_400_000;
/** When a run happened: its start, or an import's file date (stored as its start); else when it was added. */
const happened = sql<number>`COALESCE(started_at_ms, created_at_ms)`;

/**
 * The runs due for pruning, oldest first: read from the `runs_due` index (SQLite migration 11, PostgreSQL 9), which
 * holds only unpinned, unpruned runs — so a sweep through a year of runs reads each page from where the pruned ones
 * end instead of stepping over all of them again (400 pages × 20,000 runs), and the newest N from `runs_newest`.
 * Its conditions on `pinned` and `pruned_at_ms` are literals: a database uses a partial index only for a query whose
 * own text implies the index's condition.
 */
export function dueRunsQuery(db: Kysely<StallscopeDb>, policy: RetentionPolicy, nowMs: number, limit: number) {
  const { retainDays, retainRuns } = policy;
  return db
    .selectFrom('runs')
    .select('id')
    .where(sql<boolean>`pinned = 0`)
    .where(sql<boolean>`pruned_at_ms IS NULL`)
    .where('status', '!=', 'running')
    .where((eb) => {
      const due = [];
      if (retainDays !== null) due.push(eb(happened, '<', nowMs - retainDays * DAY_MS));
      if (retainRuns !== null)
        due.push(
          eb(
            'id',
            'not in',
            eb
              .selectFrom('runs as newest')
              .select('newest.id')
              .orderBy(sql`COALESCE(newest.started_at_ms, newest.created_at_ms)`, 'desc')
              .orderBy('newest.id')
              .limit(retainRuns),
          ),
        );
      return eb.or(due);
    })
    .orderBy(happened)
    .orderBy('id')
    .limit(limit);
}

export class KyselyRetentionStore implements RetentionStore {
  constructor(private readonly db: Kysely<StallscopeDb>) {}

  async dueRuns(policy: RetentionPolicy, nowMs: number, limit: number): Promise<string[]> {
    if (policy.retainDays === null && policy.retainRuns === null) return [];
    const rows = await dueRunsQuery(this.db, policy, nowMs, limit).execute();
    return rows.map((r) => r.id);
  }

  async pruneBatch(runId: string, table: PrunedTable, max: number): Promise<number> {
    // Row by key range through the primary key (run_id, seq|idx): each batch deletes the run's first `max` rows.
    const r =
      table === 'events'
        ? await this.db
            .deleteFrom('events')
            .where('run_id', '=', runId)
            .where('seq', 'in', (eb) =>
              eb.selectFrom('events').select('seq').where('run_id', '=', runId).orderBy('seq').limit(max),
            )
            .executeTakeFirst()
        : await this.db
            .deleteFrom('requests')
            .where('run_id', '=', runId)
            .where('idx', 'in', (eb) =>
              eb.selectFrom('requests').select('idx').where('run_id', '=', runId).orderBy('idx').limit(max),
            )
            .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async markPruned(runId: string, nowMs: number): Promise<void> {
    await this.db.updateTable('runs').set({ pruned_at_ms: nowMs }).where('id', '=', runId).execute();
  }

  async setPinned(runId: string, pinned: boolean): Promise<boolean> {
    const r = await this.db
      .updateTable('runs')
      .set({ pinned: pinned ? 1 : 0 })
      .where('id', '=', runId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async retentionFacts(runId: string): Promise<{ pinned: boolean; prunedAtMs: number | null } | null> {
    const r = await this.db
      .selectFrom('runs')
      .select(['pinned', 'pruned_at_ms'])
      .where('id', '=', runId)
      .executeTakeFirst();
    if (!r) return null;
    return { pinned: Number(r.pinned) === 1, prunedAtMs: r.pruned_at_ms === null ? null : Number(r.pruned_at_ms) };
  }
}
