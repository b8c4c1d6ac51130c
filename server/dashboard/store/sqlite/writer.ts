/**
 * Batched writer for live runs: events, the request rows they end, stall
 * reports and the run's light state go to SQLite in one transaction per
 * batch — every `intervalMs` or as soon as `maxBatch` events wait. A crash
 * (even SIGKILL) loses at most the batch that had not been committed yet.
 */
import type Database from 'better-sqlite3';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import { stallKey } from '../../../../shared/stalls/stallReport.ts';
import { fingerprintColumns, type Effects } from '../common/effects.ts';

const NONE: Effects = Object.freeze({});
const EVENTS_PER_STATEMENT = 32;
const ROWS_PER_STATEMENT = 16;

interface PendingEvent {
  runId: string;
  seq: number;
  json: string;
  effects: Effects;
}

export interface WriterOptions {
  intervalMs?: number;
  maxBatch?: number;
  /** The run's current state, stored with each batch so a restart shows the counts reached. */
  stateOf: (runId: string) => RunState | undefined;
  /** A timer flush failed (default: stderr). */
  onError?: (e: Error) => void;
}

export class BatchWriter {
  private pending: PendingEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly intervalMs: number;
  private readonly maxBatch: number;
  private readonly insertEvent: Database.Statement;
  private readonly insertEvents: Database.Statement;
  private readonly upsertRequest: Database.Statement;
  private readonly upsertRequests: Database.Statement;
  private readonly insertStall: Database.Statement;
  private readonly insertRange: Database.Statement;
  private readonly markRecovered: Database.Statement;
  private readonly setRunFacts: Database.Statement;
  private readonly updateRun: Database.Statement;
  private readonly countDropped: Database.Statement;
  private readonly tx: (batch: PendingEvent[]) => void;
  /** Committed batches and events, for tests and the benchmark. */
  stats = { batches: 0, events: 0, failedBatches: 0 };
  /** When the oldest event still queued was queued (epoch ms; meaningless while nothing is): the ingest lag. */
  pendingSinceMs = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly opts: WriterOptions,
  ) {
    this.intervalMs = opts.intervalMs ?? 100;
    // Bounded so one synchronous commit never stalls the event loop (and the live stream) for long.
    this.maxBatch = opts.maxBatch ?? 2000;
    this.insertEvent = db.prepare('INSERT OR IGNORE INTO events (run_id, seq, json) VALUES (?,?,?)');
    // Multi-row statements: far fewer native calls per event on the hot path.
    this.insertEvents = db.prepare(
      `INSERT OR IGNORE INTO events (run_id, seq, json) VALUES ${Array(EVENTS_PER_STATEMENT).fill('(?,?,?)').join(',')}`,
    );
    this.upsertRequest = db.prepare('INSERT OR REPLACE INTO requests (run_id, idx, row_json, status) VALUES (?,?,?,?)');
    this.upsertRequests = db.prepare(
      `INSERT OR REPLACE INTO requests (run_id, idx, row_json, status) VALUES ${Array(ROWS_PER_STATEMENT).fill('(?,?,?,?)').join(',')}`,
    );
    this.insertRange = db.prepare(
      'INSERT OR REPLACE INTO request_ranges (run_id, from_idx, to_idx, status, id_prefix, row_json) VALUES (?,?,?,?,?,?)',
    );
    this.insertStall = db.prepare(
      `INSERT OR IGNORE INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, fingerprint,
        fingerprint_json) VALUES (?,?,?,?,?,?,?,?)`,
    );
    // The first timeout is kept once (the first one stays); the identity as the run last said it.
    this.setRunFacts = db.prepare(
      `UPDATE runs SET first_timeout_json = COALESCE(first_timeout_json, ?),
        server_identity_json = COALESCE(?, server_identity_json) WHERE id = ?`,
    );
    this.markRecovered = db.prepare(
      'UPDATE stall_reports SET recovered_json = ? WHERE run_id = ? AND worker_id = ? AND op_id = ?',
    );
    this.updateRun = db.prepare(
      'UPDATE runs SET last_seq = MAX(last_seq, ?), state_json = COALESCE(?, state_json) WHERE id = ?',
    );
    this.countDropped = db.prepare(
      'UPDATE runs SET dropped_events = dropped_events + ?, dropped_error = ? WHERE id = ?',
    );
    this.tx = db.transaction((batch: PendingEvent[]) => this.write(batch));
  }

  /** Queues one numbered event; never blocks on I/O. */
  push(runId: string, seq: number, json: string, effects: Effects): void {
    if (this.pending.length === 0) this.pendingSinceMs = Date.now();
    this.pending.push({ runId, seq, json, effects });
    if (this.pending.length >= this.maxBatch) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flushFromTimer(), this.intervalMs);
  }

  /**
   * A failed commit inside a timer would be an uncaught exception that ends
   * the process: it is reported instead (the batch is lost, the dashboard lives).
   */
  private flushFromTimer(): void {
    try {
      this.flush();
    } catch (e) {
      this.stats.failedBatches++;
      this.opts.onError?.(e as Error);
    }
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Commits everything queued, now, in one transaction. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    try {
      this.tx(batch);
    } catch (e) {
      this.countDrops(batch, e as Error);
      throw e;
    }
    this.stats.batches++;
    this.stats.events += batch.length;
  }

  private write(batch: PendingEvent[]): void {
    const lastSeq = new Map<string, number>();
    const whole = batch.length - (batch.length % EVENTS_PER_STATEMENT);
    const args: unknown[] = new Array(EVENTS_PER_STATEMENT * 3);
    for (let i = 0; i < whole; i += EVENTS_PER_STATEMENT) {
      for (let k = 0; k < EVENTS_PER_STATEMENT; k++) {
        const p = batch[i + k];
        args[3 * k] = p.runId;
        args[3 * k + 1] = p.seq;
        args[3 * k + 2] = p.json;
      }
      this.insertEvents.run(...args);
    }
    for (let i = whole; i < batch.length; i++) this.insertEvent.run(batch[i].runId, batch[i].seq, batch[i].json);
    this.writeRows(batch);
    for (const p of batch) {
      const { stall, recovered, firstTimeout, serverIdentity, endedRange: r } = p.effects ?? NONE;
      if (r) this.insertRange.run(p.runId, r.from, r.to, r.row.status, r.idPrefix, JSON.stringify(r.row));
      if (stall) {
        const key = stallKey(stall); // py-spy captures have no worker/op: see shared/stalls/stallReport.ts
        const fp = fingerprintColumns(stall);
        this.insertStall.run(
          p.runId,
          key.workerId,
          key.opId,
          p.seq,
          stall.phase,
          JSON.stringify(stall),
          fp.fingerprint,
          fp.json,
        );
      }
      if (firstTimeout || serverIdentity)
        this.setRunFacts.run(
          firstTimeout ? JSON.stringify(firstTimeout) : null,
          serverIdentity ? JSON.stringify(serverIdentity) : null,
          p.runId,
        );
      if (recovered) {
        this.markRecovered.run(
          JSON.stringify({ stalledS: recovered.stalledS, ts: recovered.ts }),
          p.runId,
          recovered.workerId,
          recovered.opId,
        );
      }
      lastSeq.set(p.runId, p.seq);
    }
    for (const [runId, seq] of lastSeq) {
      const state = this.opts.stateOf(runId);
      this.updateRun.run(seq, state ? JSON.stringify(state) : null, runId);
    }
  }

  /**
   * A batch the database refused is lost (its events were acknowledged): each run it held says how many of its
   * events, on its page (docs/design.md#outage-buffer). Best effort — the failure may be the database's own.
   */
  private countDrops(batch: PendingEvent[], e: Error): void {
    const perRun = new Map<string, number>();
    for (const p of batch) perRun.set(p.runId, (perRun.get(p.runId) ?? 0) + 1);
    const error = e.message.split('\n')[0].slice(0, 300);
    try {
      for (const [runId, n] of perRun) this.countDropped.run(n, error, runId);
    } catch {
      // the database refuses every write: the stderr line of the failed batch is all there is
    }
  }

  /** Ended request rows, many per statement (a later row for the same request replaces an earlier one). */
  private writeRows(batch: PendingEvent[]): void {
    const rows: unknown[] = [];
    for (const p of batch) {
      const r = p.effects?.endedRow;
      if (r) rows.push(p.runId, r.index, JSON.stringify(r), r.status);
    }
    const per = ROWS_PER_STATEMENT * 4;
    const whole = rows.length - (rows.length % per);
    for (let i = 0; i < whole; i += per) this.upsertRequests.run(...rows.slice(i, i + per));
    for (let i = whole; i < rows.length; i += 4) this.upsertRequest.run(rows[i], rows[i + 1], rows[i + 2], rows[i + 3]);
  }

  /** Flushes and stops the timer (the database stays open). */
  close(): void {
    this.flush();
  }
}
