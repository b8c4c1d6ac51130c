/**
 * The PostgreSQL writer's batches (pgWriter.ts) as plain data: what one transaction writes, how a batch the
 * database refused is split so that what it refuses is one event (or one op) — per run, then halves of a run,
 * then each op alone, in the order they were queued — and the per-run count of refused events.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Drops, QueuedEvent } from './pgBatchSql.ts';

/** Work that must follow the events queued before it (a run's final update), in the same kind of transaction. */
export interface QueuedOp {
  run: (c: pg.ClientBase) => Promise<void>;
  done: () => void;
  failed: (e: Error) => void;
}

/** What one transaction writes; kept whole across connection failures, so a retry is the same batch, same id. */
export interface Batch {
  /** Written in its transaction: after a lost COMMIT answer, says whether it committed. */
  id: string;
  events: QueuedEvent[];
  ops: QueuedOp[];
  /** The COMMIT was sent and its answer lost: look the id up before writing it again. */
  maybeCommitted: boolean;
  /** The drops the last attempt wrote (settled when it turns out to have committed). */
  dropsSent: Drops;
  /** Deadlocks and serialization failures met: retried whole a few times, then split like any refusal. */
  transient: number;
}

export function newBatch(events: QueuedEvent[], ops: QueuedOp[]): Batch {
  return { id: randomUUID(), events, ops, maybeCommitted: false, dropsSent: new Map(), transient: 0 };
}

/** The parts to write instead of a refused batch, in order; none when it is one event or one op (dropped then). */
export function splitRefused(b: Batch): Batch[] {
  const parts: Batch[] = [];
  const runs = new Set(b.events.map((ev) => ev.runId));
  if (runs.size > 1)
    for (const r of runs)
      parts.push(
        newBatch(
          b.events.filter((ev) => ev.runId === r),
          [],
        ),
      );
  else if (b.events.length > 1) {
    const half = Math.ceil(b.events.length / 2);
    parts.push(newBatch(b.events.slice(0, half), []), newBatch(b.events.slice(half), []));
  } else if (b.events.length === 1 && b.ops.length) parts.push(newBatch(b.events, []));
  // The ops follow the events they were queued after, each alone.
  if (parts.length || b.ops.length > 1) for (const op of b.ops) parts.push(newBatch([], [op]));
  return parts;
}

/** Counts one refused event on its run (the database's words for it kept, NULs and all but the first line cut). */
export function addDrop(drops: Drops, runId: string, e: Error): string {
  const error = e.message.split('\n')[0].replace(/\0/g, '').slice(0, 300);
  drops.set(runId, { n: (drops.get(runId)?.n ?? 0) + 1, error });
  return error;
}

/** Drops counted on their runs by a committed batch are no longer pending. */
export function subtractDrops(drops: Drops, sent: Drops): void {
  for (const [runId, { n }] of sent) {
    const d = drops.get(runId);
    if (!d) continue;
    if (d.n <= n) drops.delete(runId);
    else drops.set(runId, { n: d.n - n, error: d.error });
  }
}
