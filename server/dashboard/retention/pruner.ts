/**
 * Retention's worker (docs/design.md#retention): every `everyMs`, the runs
 * outside the policy lose their request rows and event streams, oldest run
 * first, in bounded batches with the event loop free between them, so live
 * ingest and the web UI never wait long behind a prune. The batch size adapts
 * to keep each delete near `targetBatchMs`, and a sweep takes at most
 * `loopShare` of the event loop: a year's sweep is tens of thousands of small
 * batches, and back to back they kept the loop busy throughout (ingest's p99
 * 140 ms on SQLite, docs/performance.md#year-of-history). A pinned run, a live one, and one
 * already pruned are never touched; a run pinned while its rows are being
 * pruned keeps what is left (and says it was pruned, since some rows went).
 */
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
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
  /**
   * The share of the event loop a sweep may take (default 0.5): after each SLICE_MS of its own calls it rests as
   * long as keeps it to that share, so a request arriving mid-sweep waits behind at most one slice.
   */
  loopShare?: number;
  /** How a sweep rests between slices (default a timer); tests record it. */
  rest?: (ms: number) => Promise<void>;
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
/** The work a sweep does before it rests: a few batches, short next to a request's wait. */
const SLICE_MS = 4;
/** The longest one rest lasts (a batch that took seconds on a slow disk does not stop the sweep for as long again). */
const MAX_REST_MS = 1000;
/** Runs taken per query of the due list. */
const RUNS_PER_PAGE = 50;

export class Pruner {
  readonly stats: PrunerStats = { runsPruned: 0, rowsPruned: 0, failedSweeps: 0, lastSweepAtMs: 0 };
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;
  private batch: number;
  /** The sweep's own time since it last rested. */
  private worked = 0;
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
        const turn = performance.now();
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
        await this.pace(turn);
        if (n < size) break; // the run's last rows of this table
      }
    }
    await this.o.store.markPruned(id, this.now());
    this.stats.runsPruned++;
  }

  /**
   * Between batches: the loop turns at once, and once the sweep has worked SLICE_MS since it last rested (this turn's
   * calls from `turn` on, awaits included: on PostgreSQL they are its backend's work on the same machine) it rests
   * long enough to keep to `loopShare`.
   */
  private async pace(turn: number): Promise<void> {
    this.worked += performance.now() - turn;
    if (this.worked < SLICE_MS) {
      await yieldToLoop();
      return;
    }
    const share = this.o.loopShare ?? 0.5;
    const ms = Math.min(MAX_REST_MS, (this.worked * (1 - share)) / share);
    this.worked = 0;
    await (this.o.rest ?? sleep)(ms);
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
