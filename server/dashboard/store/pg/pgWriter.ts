/**
 * The PostgreSQL store's live writer (docs/design.md#team-dashboard and
 * #outage-buffer). Events wait in a queue and are written in batches, one
 * transaction each, in which the database numbers them: a run's `last_seq`
 * is raised by the batch's count under its row lock, so however many
 * dashboard processes write one run, its seqs have no gaps and no
 * duplicates. Numbered events are handed back (in order) after the commit,
 * which also notifies the other processes (NOTIFY, delivered on commit).
 *
 * While the database is away, batches stay queued — the outage buffer,
 * bounded by `capacity` events — and are retried with back-off; nothing
 * queued is dropped for a connection failure. A batch whose COMMIT was sent
 * but not answered may have committed: its id, written in its transaction
 * (pgBatchSql.ts), is looked up before it is written again, so it is stored
 * exactly once. Any other failure splits the batch — per run, then in halves
 * — so only the events the database refuses are dropped, counted on their
 * runs (`dropped_events`), never another run's.
 */
import type pg from 'pg';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import { isConnectionError } from '../common/connectionError.ts';
import type { Effects } from '../common/effects.ts';
import {
  committedNumbering,
  numbered,
  pruneBatchIds,
  writeBatch,
  type Drops,
  type Numbering,
  type QueuedEvent,
} from './pgBatchSql.ts';
import { addDrop, newBatch, splitRefused, subtractDrops, type Batch, type QueuedOp } from './pgBatches.ts';

/** A look-up of a batch's outcome did not answer: the batch waits, as for a connection failure. */
class OutcomeUnknown extends Error {}

/** Deadlock, serialization failure: the same batch is written again (up to 3 times), not split. */
const isTransient = (e: unknown) => {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('40');
};

export interface PgWriterOptions {
  intervalMs?: number;
  maxBatch?: number;
  /** Events the outage buffer holds. */
  capacity?: number;
  stateOf: (runId: string) => RunState | undefined;
  numbered: (runId: string, seq: number, json: string) => void;
  /** This process's id in NOTIFY payloads (so it ignores its own). */
  instance: number;
  onError: (e: Error) => void;
  onConnection: (up: boolean, e: Error | null) => void;
  now?: () => number;
}

const MAX_BACKOFF_MS = 5000;

export class PgWriter {
  private events: QueuedEvent[] = [];
  private ops: QueuedOp[] = [];
  /** The batch being written, or waiting for the database to come back. */
  private current: Batch | null = null;
  /** Parts of a batch the database refused, written (or dropped) before anything queued after it. */
  private front: Batch[] = [];
  /** Refused events not yet counted on their runs: written with the next batch that commits. */
  private drops: Drops = new Map();
  private prunedAtMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private backoffMs = 0;
  private closed = false;
  /** Events and ops ever queued, and ever taken off the queue (committed or dropped): `written()` waits on these. */
  private queued = { events: 0, ops: 0 };
  private done = { events: 0, ops: 0 };
  private waiters: { events: number; ops: number; resolve: () => void }[] = [];
  readonly intervalMs: number;
  readonly maxBatch: number;
  readonly capacity: number;
  stats = { batches: 0, events: 0, failedBatches: 0, retries: 0, droppedEvents: 0, recoveredCommits: 0 };

  constructor(
    private readonly pool: pg.Pool,
    private readonly o: PgWriterOptions,
  ) {
    this.intervalMs = o.intervalMs ?? 100;
    this.maxBatch = o.maxBatch ?? 2000;
    this.capacity = o.capacity ?? 200_000;
  }

  /** Events queued and not yet committed or dropped (what the outage buffer holds). */
  get pendingCount(): number {
    let n = this.events.length + (this.current?.events.length ?? 0);
    for (const b of this.front) n += b.events.length;
    return n;
  }

  /** When the oldest event still queued was queued (epoch ms; 0 while nothing is). */
  get pendingSinceMs(): number {
    let oldest = Infinity;
    for (const b of [this.current, ...this.front])
      for (const e of b?.events ?? []) oldest = Math.min(oldest, e.queuedAtMs);
    oldest = Math.min(oldest, this.events[0]?.queuedAtMs ?? Infinity);
    return oldest === Infinity ? 0 : oldest;
  }

  /** Whether the database was unreachable at the last attempt. */
  down = false;

  push(runId: string, json: string, effects: Effects): void {
    this.events.push({ runId, json, effects, queuedAtMs: Date.now() });
    this.queued.events++;
    if (this.down) {
      // The retry timer is set when a write failed; the health probe may have found the database gone first.
      this.kick(Math.max(this.backoffMs, 100));
      return;
    }
    if (this.events.length >= this.maxBatch) this.kick(0);
    else this.kick(this.intervalMs);
  }

  /** Runs `op` after everything queued before it is written; settles when it is committed. */
  enqueue(op: (c: pg.ClientBase) => Promise<void>): Promise<void> {
    return new Promise((done, failed) => {
      this.ops.push({ run: op, done, failed });
      this.queued.ops++;
      this.kick(this.down ? Math.max(this.backoffMs, 100) : 0);
    });
  }

  private kick(ms: number): void {
    if (this.closed) return;
    if (ms === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, ms);
  }

  /**
   * Settles once every event queued so far is committed (or dropped as unwritable), or when the database goes
   * away (they wait in the outage buffer) — not when the queue is empty: under a steady stream of reporters it
   * never is, and a batch's answer would wait for everyone else's.
   */
  written(): Promise<void> {
    if (this.down || this.isDone(this.queued)) return Promise.resolve();
    const upTo = { ...this.queued };
    const p = new Promise<void>((resolve) => this.waiters.push({ ...upTo, resolve }));
    void this.drain();
    return p;
  }

  /**
   * Settles true once every event queued so far is committed (or dropped as unwritable) — through an outage too,
   * unlike written() — or false after `maxWaitMs` (or at close). A batch of a run several processes write is
   * answered after this: buffered events are seen by no other process until they are committed.
   */
  committed(maxWaitMs: number): Promise<boolean> {
    if (this.isDone(this.queued)) return Promise.resolve(true);
    const upTo = { ...this.queued };
    return new Promise<boolean>((resolve) => {
      const w = {
        ...upTo,
        settle: (ok: boolean) => {
          clearTimeout(timer);
          this.commitWaiters.delete(w);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => w.settle(false), maxWaitMs);
      this.commitWaiters.add(w);
      void this.drain();
    });
  }

  private readonly commitWaiters = new Set<{ events: number; ops: number; settle: (ok: boolean) => void }>();

  private isDone(upTo: { events: number; ops: number }): boolean {
    return this.done.events >= upTo.events && this.done.ops >= upTo.ops;
  }

  private wake(all: boolean): void {
    for (const w of [...this.commitWaiters]) if (this.isDone(w)) w.settle(true);
    if (!this.waiters.length) return;
    const still = [];
    for (const w of this.waiters) {
      if (all || this.isDone(w)) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Writes until the queue is empty (one drain at a time); settles then, or when the database goes away
   * (the queue waits for the retry).
   */
  drain(): Promise<void> {
    this.running ??= this.drainLoop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private get idle(): boolean {
    return !this.current && !this.front.length && !this.events.length && !this.ops.length && !this.drops.size;
  }

  /** The next batch: a part of a refused one first; ops only once the events queued ahead of them are in. */
  private take(): Batch {
    const part = this.front.shift();
    if (part) return part;
    const events = this.events.splice(0, this.maxBatch);
    const ops = this.events.length === 0 ? this.ops.splice(0) : [];
    return newBatch(events, ops);
  }

  private async drainLoop(): Promise<void> {
    while (!this.idle) {
      const b = (this.current ??= this.take());
      try {
        const numbers = await this.commit(b);
        this.current = null;
        this.connected();
        this.stats.batches++;
        this.stats.events += b.events.length;
        for (const [runId, seq, json] of numbered(b.events, numbers)) this.o.numbered(runId, seq, json);
        for (const op of b.ops) op.done();
        this.settled(b);
      } catch (e) {
        if (isConnectionError(e) || e instanceof OutcomeUnknown) {
          this.lost(e as Error);
          this.wake(true); // buffered: acknowledged as the outage buffer acknowledges
          return;
        }
        if (isTransient(e) && ++b.transient <= 3) continue;
        this.current = null;
        this.refused(b, e as Error);
      }
      this.wake(false);
    }
  }

  private settled(b: Batch): void {
    this.done.events += b.events.length;
    this.done.ops += b.ops.length;
  }

  /** Writes `b` once: if an earlier attempt's COMMIT may have landed, the database says whether it did. */
  private async commit(b: Batch): Promise<Numbering> {
    if (b.maybeCommitted) {
      let found: Numbering | null;
      try {
        found = await committedNumbering(this.pool, b.id);
      } catch (e) {
        throw isConnectionError(e) ? e : new OutcomeUnknown(`batch ${b.id}: ${(e as Error).message}`);
      }
      if (found) {
        this.stats.recoveredCommits++;
        subtractDrops(this.drops, b.dropsSent);
        return found;
      }
      b.maybeCommitted = false;
    }
    return this.write(b);
  }

  /**
   * The database refused `b` (not the connection): its parts are written alone — per run, then halves of a run, then
   * each op — so what it refuses is one event, dropped and counted on its run; the rest is stored.
   */
  private refused(b: Batch, e: Error): void {
    const parts = splitRefused(b);
    if (parts.length) {
      this.front.unshift(...parts);
      return;
    }
    // One event or one op the database refuses: that alone is dropped.
    for (const ev of b.events) {
      const error = addDrop(this.drops, ev.runId, e);
      this.stats.droppedEvents++;
      this.o.onError(new Error(`run ${ev.runId}: the database refused one event (it alone is dropped): ${error}`));
    }
    this.stats.failedBatches++;
    for (const op of b.ops) {
      this.o.onError(e);
      op.failed(e);
    }
    this.settled(b);
  }

  /** A drain is under way: its writes say whether the database answers. */
  get writing(): boolean {
    return this.running !== null;
  }

  /** The health probe found the database gone before any write did: health says so now. */
  probeFailed(e: Error): void {
    if (this.down || this.closed) return;
    this.down = true;
    this.o.onConnection(false, e);
  }

  /** The health probe reached the database: connected again, and what waits in the buffer is written now. */
  probeAnswered(): void {
    if (!this.down || this.closed) return;
    if (this.idle) this.connected();
    else this.kick(0);
  }

  private connected(): void {
    if (!this.down) return;
    this.down = false;
    this.backoffMs = 0;
    this.o.onConnection(true, null);
  }

  private lost(e: Error): void {
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs ? this.backoffMs * 2 : 100);
    this.stats.retries++;
    if (!this.down) {
      this.down = true;
      this.o.onConnection(false, e);
    }
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer); // one retry timer: a push's kick may have set one meanwhile
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, this.backoffMs);
  }

  /** One transaction: number the batch's events per run, write them, their effects, pending drops, then the ops. */
  private async write(b: Batch): Promise<Numbering> {
    const c = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      const drops: Drops = new Map(this.drops);
      const now = (this.o.now ?? Date.now)();
      const numbering = await writeBatch(c, this.o, b.id, b.events, drops, now);
      for (const op of b.ops) await op.run(c);
      b.maybeCommitted = true;
      b.dropsSent = drops;
      await c.query('COMMIT');
      b.maybeCommitted = false;
      subtractDrops(this.drops, drops);
      if (now - this.prunedAtMs > 3600_000) {
        this.prunedAtMs = now;
        void pruneBatchIds(this.pool, now).catch(() => (this.prunedAtMs = 0));
      }
      return numbering;
    } catch (e) {
      broken = isConnectionError(e) ? (e as Error) : undefined;
      // Only a connection lost with the COMMIT in flight leaves the outcome unknown; a refusal rolled it back.
      if (!broken) b.maybeCommitted = false;
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release(broken);
    }
  }

  /** Writes what is queued (if the database answers) and stops the timers. */
  async close(): Promise<void> {
    if (!this.down) await this.drain();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wake(true);
    for (const w of [...this.commitWaiters]) w.settle(false);
  }
}
