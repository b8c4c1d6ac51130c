/**
 * Retention's worker (docs/design.md#retention): every `everyMs`, the runs
 * outside the policy lose their request rows and event streams, oldest run
 * first, in bounded batches with the event loop free between them, so live
 * ingest and the web UI never wait long behind a prune. The batch size adapts
 * to keep each delete near `targetBatchMs`. A pinned run, a live one, and one
 * already pruned are never touched; a run pinned while its rows are being
 * pruned keeps what is left (and says it was pruned, since some rows went).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import {
  PRUNED_TABLES,
  type PrunedTable,
  type RetentionPolicy,
  type RetentionStore,
} from '../store/common/retention.ts';

export interface PrunerOptions {
  store: RetentionStore;
  policy: RetentionPolicy;
  /** Runs live in this process are never pruned, whatever their stored status says. */
  isActive: (runId: string) => boolean;
  /** Between sweeps (default 1 h); the first sweep runs `firstDelayMs` after start (default 1 s, past start-up). */
  everyMs?: number;
  firstDelayMs?: number;
  /** Rows a batch starts with, the most it may grow to, and the time one batch aims at (500, 2,000, 3 ms). */
  batchRows?: number;
  maxBatchRows?: number;
  targetBatchMs?: number;
  now?: () => number;
  /** A sweep that failed (default stderr): it is retried at the next one. */
  onError?: (e: Error) => void;
}

export interface PrunerStats {
  runsPruned: number;
  rowsPruned: number;
  failedSweeps: number;
  /** Epoch ms of the last sweep's end, 0 before the first. */
  lastSweepAtMs: number;
}

const MIN_BATCH = 100;
/** Runs taken per query of the due list. */
const RUNS_PER_PAGE = 50;

export class Pruner {
  readonly stats: PrunerStats = { runsPruned: 0, rowsPruned: 0, failedSweeps: 0, lastSweepAtMs: 0 };
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;
  private batch: number;
  private readonly now: () => number;

  constructor(private readonly o: PrunerOptions) {
    this.batch = o.batchRows ?? 500;
    this.now = o.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.o.policy.retainDays !== null || this.o.policy.retainRuns !== null;
  }

  /** Schedules the sweeps (nothing when no policy is set). */
  start(): void {
    if (!this.enabled || this.stopping) return;
    this.schedule(this.o.firstDelayMs ?? 1000);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.sweep().finally(() => {
        if (!this.stopping) this.schedule(this.o.everyMs ?? 3_600_000);
      });
    }, ms);
    this.timer.unref();
  }

  /** One sweep now (one at a time: a call while one runs waits for it). Failures are counted and reported. */
  sweep(): Promise<void> {
    this.running ??= this.sweepAll()
      .catch((e: unknown) => {
        this.stats.failedSweeps++;
        const err = e instanceof Error ? e : new Error(String(e));
        (this.o.onError ?? ((x) => process.stderr.write(`stallscope: retention sweep failed: ${x.message}\n`)))(err);
      })
      .finally(() => {
        this.running = null;
        this.stats.lastSweepAtMs = this.now();
      });
    return this.running;
  }

  private async sweepAll(): Promise<void> {
    const skipped = new Set<string>();
    for (;;) {
      const due = (await this.o.store.dueRuns(this.o.policy, this.now(), RUNS_PER_PAGE + skipped.size)).filter(
        (id) => !skipped.has(id),
      );
      if (due.length === 0 || this.stopping) return;
      for (const id of due) {
        if (this.stopping) return;
        if (this.o.isActive(id)) skipped.add(id);
        else await this.pruneRun(id);
      }
    }
  }

  private async pruneRun(id: string): Promise<void> {
    let deleted = 0;
    for (const table of Object.keys(PRUNED_TABLES) as PrunedTable[]) {
      for (;;) {
        if (this.stopping) return;
        const facts = await this.o.store.retentionFacts(id);
        if (!facts) return; // deleted meanwhile
        if (facts.pinned) {
          // Pinned meanwhile: what is left stays; the page says rows were pruned only if some went.
          if (deleted > 0) await this.o.store.markPruned(id, this.now());
          return;
        }
        const size = this.batch;
        const started = performance.now();
        const n = await this.o.store.pruneBatch(id, table, size);
        this.adapt(performance.now() - started, n, size);
        deleted += n;
        this.stats.rowsPruned += n;
        await yieldToLoop();
        if (n < size) break; // the run's last rows of this table
      }
    }
    await this.o.store.markPruned(id, this.now());
    this.stats.runsPruned++;
  }

  /** Aims each delete at targetBatchMs: the next batch scaled by how far this one (of `size` rows) was from it. */
  private adapt(ms: number, rows: number, size: number): void {
    if (rows < size || ms <= 0) return;
    const target = this.o.targetBatchMs ?? 3;
    const scaled = Math.round(size * Math.min(2, Math.max(0.25, target / ms)));
    this.batch = Math.min(this.o.maxBatchRows ?? 2000, Math.max(MIN_BATCH, scaled));
  }

  /** Stops the schedule and waits for a sweep in progress to end at its next batch. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
