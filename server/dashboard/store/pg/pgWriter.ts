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
 * queued is dropped for a connection failure. Other failures (a bug, a
 * deleted run) drop that batch and are reported, as the embedded writer does.
 */
import type pg from 'pg';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import { stallKey } from '../../../../shared/stalls/stallReport.ts';
import { fingerprintColumns, type Effects } from '../common/effects.ts';

interface QueuedEvent {
  runId: string;
  json: string;
  effects: Effects;
  /** When it was queued (epoch ms): the oldest one's age is /metrics' ingest lag. */
  queuedAtMs: number;
}

/** Work that must follow the events queued before it (a run's final update), in the same kind of transaction. */
interface QueuedOp {
  run: (c: pg.ClientBase) => Promise<void>;
  done: () => void;
  failed: (e: Error) => void;
}

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

/** Errors that mean "the database cannot be reached now", not "this batch is wrong". */
export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err.code === 'string' ? err.code : '';
  if (/^(08|57P)/.test(code) || code === '53300') return true; // connection exceptions, shutdown, too many clients
  if (['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'ENOENT', 'EHOSTUNREACH'].includes(code))
    return true;
  const m = typeof err.message === 'string' ? err.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(m);
}

const MAX_BACKOFF_MS = 5000;

export class PgWriter {
  private events: QueuedEvent[] = [];
  private ops: QueuedOp[] = [];
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
  stats = { batches: 0, events: 0, failedBatches: 0, retries: 0 };

  constructor(
    private readonly pool: pg.Pool,
    private readonly o: PgWriterOptions,
  ) {
    this.intervalMs = o.intervalMs ?? 100;
    this.maxBatch = o.maxBatch ?? 2000;
    this.capacity = o.capacity ?? 200_000;
  }

  get pendingCount(): number {
    return this.events.length;
  }

  /** When the oldest event still queued was queued (epoch ms; 0 while nothing is). */
  get pendingSinceMs(): number {
    return this.events[0]?.queuedAtMs ?? 0;
  }

  /** Whether the database was unreachable at the last attempt. */
  down = false;

  push(runId: string, json: string, effects: Effects): void {
    this.events.push({ runId, json, effects, queuedAtMs: Date.now() });
    this.queued.events++;
    if (this.down) return; // the retry timer is set
    if (this.events.length >= this.maxBatch) this.kick(0);
    else this.kick(this.intervalMs);
  }

  /** Runs `op` after everything queued before it is written; settles when it is committed. */
  enqueue(op: (c: pg.ClientBase) => Promise<void>): Promise<void> {
    return new Promise((done, failed) => {
      this.ops.push({ run: op, done, failed });
      this.queued.ops++;
      if (!this.down) this.kick(0);
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

  private isDone(upTo: { events: number; ops: number }): boolean {
    return this.done.events >= upTo.events && this.done.ops >= upTo.ops;
  }

  private wake(all: boolean): void {
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

  private async drainLoop(): Promise<void> {
    while (this.events.length || this.ops.length) {
      const batch = this.events.slice(0, this.maxBatch);
      // Ops run with the last batch before them: only once the events queued ahead of them are in.
      const ops = batch.length === this.events.length ? this.ops.slice() : [];
      try {
        const numbered = await this.write(batch, ops);
        this.events.splice(0, batch.length);
        this.ops.splice(0, ops.length);
        this.connected();
        this.stats.batches++;
        this.stats.events += batch.length;
        for (const [runId, seq, json] of numbered) this.o.numbered(runId, seq, json);
        for (const op of ops) op.done();
      } catch (e) {
        if (isConnectionError(e)) {
          this.lost(e as Error);
          this.wake(true); // buffered: acknowledged as the outage buffer acknowledges
          return;
        }
        // Not the connection: this batch cannot be written (retrying would fail the same way).
        this.events.splice(0, batch.length);
        this.ops.splice(0, ops.length);
        this.stats.failedBatches++;
        this.o.onError(e as Error);
        for (const op of ops) op.failed(e as Error);
      }
      this.done.events += batch.length;
      this.done.ops += ops.length;
      this.wake(false);
    }
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
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.drain();
    }, this.backoffMs);
  }

  /** One transaction: number the batch's events per run, write them and their effects, then the ops. */
  private async write(batch: QueuedEvent[], ops: QueuedOp[]): Promise<[string, number, string][]> {
    const c = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      const numbered = await this.writeEvents(c, batch);
      for (const op of ops) await op.run(c);
      await c.query('COMMIT');
      return numbered;
    } catch (e) {
      broken = isConnectionError(e) ? (e as Error) : undefined;
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release(broken);
    }
  }

  /**
   * Set-based, so a transaction costs a handful of round trips however many runs its batch touches (one
   * statement per run made a 32-reporter batch ~130 sequential round trips: p99 ingest 412 ms).
   */
  private async writeEvents(c: pg.ClientBase, batch: QueuedEvent[]): Promise<[string, number, string][]> {
    if (batch.length === 0) return [];
    const perRun = new Map<string, QueuedEvent[]>();
    for (const e of batch) {
      const list = perRun.get(e.runId);
      if (list) list.push(e);
      else perRun.set(e.runId, [e]);
    }
    // Row locks taken in one order in every process: two batches touching the same runs never wait in a cycle.
    const runIds = [...perRun.keys()].sort();
    await c.query('SELECT id FROM runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [runIds]);
    const states = runIds.map((id) => {
      const state = this.o.stateOf(id);
      return state ? JSON.stringify(state) : null;
    });
    const r = await c.query<{ id: string; last_seq: string }>(
      `UPDATE runs r SET last_seq = r.last_seq + v.n, state_json = COALESCE(v.state, r.state_json)
       FROM unnest($1::text[], $2::int[], $3::text[]) AS v(id, n, state) WHERE r.id = v.id
       RETURNING r.id, r.last_seq`,
      [runIds, runIds.map((id) => perRun.get(id)!.length), states],
    );
    // A run deleted meanwhile has no row: its late events have nowhere to go.
    const lastSeq = new Map(r.rows.map((row) => [row.id, Number(row.last_seq)]));
    const out: [string, number, string][] = [];
    const ev = { run: [] as string[], seq: [] as number[], json: [] as string[] };
    const rows = { run: [] as string[], idx: [] as number[], json: [] as string[], status: [] as string[] };
    const notes: string[] = [];
    for (const runId of runIds) {
      const last = lastSeq.get(runId);
      if (last === undefined) continue;
      const list = perRun.get(runId)!;
      const first = last - list.length + 1;
      list.forEach((e, i) => {
        ev.run.push(runId);
        ev.seq.push(first + i);
        ev.json.push(e.json);
        out.push([runId, first + i, e.json]);
      });
      for (const [idx, row] of await this.writeRareEffects(c, runId, list, first)) {
        rows.run.push(runId);
        rows.idx.push(idx);
        rows.json.push(row.json);
        rows.status.push(row.status);
      }
      notes.push(JSON.stringify({ i: this.o.instance, k: 'events', r: runId, s: last }));
    }
    if (rows.idx.length)
      await c.query(
        `INSERT INTO requests (run_id, idx, row_json, status)
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[])
         ON CONFLICT (run_id, idx) DO UPDATE SET row_json = excluded.row_json, status = excluded.status`,
        [rows.run, rows.idx, rows.json, rows.status],
      );
    if (ev.run.length)
      await c.query(
        `INSERT INTO events (run_id, seq, json) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
         ON CONFLICT DO NOTHING`,
        [ev.run, ev.seq, ev.json],
      );
    if (notes.length) await c.query(`SELECT pg_notify('stallscope', n) FROM unnest($1::text[]) AS n`, [notes]);
    return out;
  }

  /**
   * Writes a run's rare effects (unsent ranges, stall reports, recoveries, run facts) one statement each,
   * and returns its request rows (the last one per request in the batch) for the batch's one insert.
   */
  private async writeRareEffects(
    c: pg.ClientBase,
    runId: string,
    list: QueuedEvent[],
    first: number,
  ): Promise<Map<number, { json: string; status: string }>> {
    const rows = new Map<number, { json: string; status: string }>();
    for (let i = 0; i < list.length; i++) {
      const { endedRow, endedRange: r, stall, recovered, firstTimeout, serverIdentity } = list[i].effects;
      if (endedRow) rows.set(endedRow.index, { json: JSON.stringify(endedRow), status: endedRow.status });
      // As the embedded writer: a later range from the same index replaces the earlier one.
      if (r)
        await c.query(
          `INSERT INTO request_ranges (run_id, from_idx, to_idx, status, id_prefix, row_json) VALUES ($1,$2,$3,$4,$5,$6)
           ON CONFLICT (run_id, from_idx) DO UPDATE SET to_idx = excluded.to_idx, status = excluded.status,
             id_prefix = excluded.id_prefix, row_json = excluded.row_json`,
          [runId, r.from, r.to, r.row.status, r.idPrefix, JSON.stringify(r.row)],
        );
      if (stall) {
        const key = stallKey(stall);
        const fp = fingerprintColumns(stall);
        await c.query(
          `INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, fingerprint, fingerprint_json)
           VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING`,
          [runId, key.workerId, key.opId, first + i, stall.phase, JSON.stringify(stall), fp.fingerprint, fp.json],
        );
      }
      if (firstTimeout || serverIdentity)
        await c.query(
          `UPDATE runs SET first_timeout_json = COALESCE(first_timeout_json, $2),
            server_identity_json = COALESCE($3, server_identity_json) WHERE id = $1`,
          [
            runId,
            firstTimeout ? JSON.stringify(firstTimeout) : null,
            serverIdentity ? JSON.stringify(serverIdentity) : null,
          ],
        );
      if (recovered)
        await c.query(
          'UPDATE stall_reports SET recovered_json = $4 WHERE run_id = $1 AND worker_id = $2 AND op_id = $3',
          [
            runId,
            recovered.workerId,
            recovered.opId,
            JSON.stringify({ stalledS: recovered.stalledS, ts: recovered.ts }),
          ],
        );
    }
    return rows;
  }

  /** Writes what is queued (if the database answers) and stops the timers. */
  async close(): Promise<void> {
    if (!this.down) await this.drain();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wake(true);
  }
}
