/**
 * The SQL of one PostgreSQL writer batch (pgWriter.ts): its events numbered per run under the runs' row locks,
 * their effects, the events the database refused earlier counted on their runs, and the batch's id with the seqs it
 * was numbered (`ingest_batches`) — which a writer that lost the answer to its COMMIT looks up (`committedNumbering`)
 * instead of writing the batch a second time under new seqs.
 */
import type pg from 'pg';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import { stallKey } from '../../../../shared/stalls/stallReport.ts';
import { fingerprintColumns, type Effects } from '../common/effects.ts';

export interface QueuedEvent {
  runId: string;
  json: string;
  effects: Effects;
  /** When it was queued (epoch ms): the oldest one's age is /metrics' ingest lag. */
  queuedAtMs: number;
}

/** Per run: `[runId, firstSeq, count]` — the seqs a committed batch's events of that run were given, in order. */
export type Numbering = [string, number, number][];

/** Events the database refused, per run: how many, and its words for the last one. */
export type Drops = Map<string, { n: number; error: string }>;

/** The advisory lock class ('stlb') a batch's transaction holds on its id: a look-up waits for its outcome. */
const BATCH_LOCK_CLASS = 0x73746c62;
/** A batch's id is looked up only by the process that wrote it, within seconds; kept a day, then pruned. */
export const BATCH_ID_KEEP_MS = 24 * 3600_000;

export interface BatchSqlOptions {
  stateOf: (runId: string) => RunState | undefined;
  instance: number;
}

function byRun(events: QueuedEvent[]): Map<string, QueuedEvent[]> {
  const perRun = new Map<string, QueuedEvent[]>();
  for (const e of events) {
    const list = perRun.get(e.runId);
    if (list) list.push(e);
    else perRun.set(e.runId, [e]);
  }
  return perRun;
}

/** The events of a committed batch with the seqs its numbering gave them (a run deleted meanwhile has none). */
export function numbered(events: QueuedEvent[], numbering: Numbering): [string, number, string][] {
  const perRun = byRun(events);
  const out: [string, number, string][] = [];
  for (const [runId, first] of numbering)
    (perRun.get(runId) ?? []).forEach((e, i) => out.push([runId, first + i, e.json]));
  return out;
}

/**
 * Set-based, so a transaction costs a handful of round trips however many runs its batch touches (one
 * statement per run made a 32-reporter batch ~130 sequential round trips: p99 ingest 412 ms). Returns the numbering.
 */
export async function writeBatch(
  c: pg.ClientBase,
  o: BatchSqlOptions,
  id: string,
  events: QueuedEvent[],
  drops: Drops,
  nowMs: number,
): Promise<Numbering> {
  await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BATCH_LOCK_CLASS, id]);
  const perRun = byRun(events);
  // Row locks taken in one order in every process: two batches touching the same runs never wait in a cycle.
  const runIds = [...perRun.keys()].sort();
  const locked = [...new Set([...runIds, ...drops.keys()])].sort();
  if (locked.length) await c.query('SELECT id FROM runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [locked]);
  if (drops.size) {
    const ids = [...drops.keys()];
    await c.query(
      `UPDATE runs r SET dropped_events = r.dropped_events + v.n, dropped_error = v.error
       FROM unnest($1::text[], $2::int[], $3::text[]) AS v(id, n, error) WHERE r.id = v.id`,
      [ids, ids.map((k) => drops.get(k)!.n), ids.map((k) => drops.get(k)!.error)],
    );
  }
  const numbering = runIds.length ? await numberEvents(c, o, runIds, perRun) : [];
  await c.query('INSERT INTO ingest_batches (id, numbering, at_ms) VALUES ($1, $2, $3)', [
    id,
    JSON.stringify(numbering),
    nowMs,
  ]);
  return numbering;
}

async function numberEvents(
  c: pg.ClientBase,
  o: BatchSqlOptions,
  runIds: string[],
  perRun: Map<string, QueuedEvent[]>,
): Promise<Numbering> {
  const states = runIds.map((id) => {
    const state = o.stateOf(id);
    return state ? JSON.stringify(state) : null;
  });
  // A run another process has ended keeps the state that process wrote with its end (this process's live state
  // of it, written by a late batch, would say running again).
  const r = await c.query<{ id: string; last_seq: string }>(
    `UPDATE runs r SET last_seq = r.last_seq + v.n,
       state_json = CASE WHEN r.status = 'running' THEN COALESCE(v.state, r.state_json) ELSE r.state_json END
     FROM unnest($1::text[], $2::int[], $3::text[]) AS v(id, n, state) WHERE r.id = v.id
     RETURNING r.id, r.last_seq`,
    [runIds, runIds.map((id) => perRun.get(id)!.length), states],
  );
  // A run deleted meanwhile has no row: its late events have nowhere to go.
  const lastSeq = new Map(r.rows.map((row) => [row.id, Number(row.last_seq)]));
  const numbering: Numbering = [];
  const ev = { run: [] as string[], seq: [] as number[], json: [] as string[] };
  const rows = { run: [] as string[], idx: [] as number[], json: [] as string[], status: [] as string[] };
  const notes: string[] = [];
  for (const runId of runIds) {
    const last = lastSeq.get(runId);
    if (last === undefined) continue;
    const list = perRun.get(runId)!;
    const first = last - list.length + 1;
    numbering.push([runId, first, list.length]);
    list.forEach((e, i) => {
      ev.run.push(runId);
      ev.seq.push(first + i);
      ev.json.push(e.json);
    });
    for (const [idx, row] of await writeRareEffects(c, runId, list, first)) {
      rows.run.push(runId);
      rows.idx.push(idx);
      rows.json.push(row.json);
      rows.status.push(row.status);
    }
    notes.push(JSON.stringify({ i: o.instance, k: 'events', r: runId, s: last }));
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
  return numbering;
}

/**
 * Writes a run's rare effects (unsent ranges, stall reports, recoveries, run facts) one statement each,
 * and returns its request rows (the last one per request in the batch) for the batch's one insert.
 */
async function writeRareEffects(
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
        [runId, recovered.workerId, recovered.opId, JSON.stringify({ stalledS: recovered.stalledS, ts: recovered.ts })],
      );
  }
  return rows;
}

/**
 * Whether batch `id` committed, and its numbering if it did. Waits (on the batch's advisory lock) until the
 * transaction that wrote it has ended: a backend whose client vanished right after COMMIT may still be committing.
 */
export async function committedNumbering(pool: pg.Pool, id: string): Promise<Numbering | null> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL lock_timeout = '10s'`);
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BATCH_LOCK_CLASS, id]);
    const r = await c.query<{ numbering: string }>('SELECT numbering FROM ingest_batches WHERE id = $1', [id]);
    await c.query('COMMIT');
    return r.rows.length ? (JSON.parse(r.rows[0].numbering) as Numbering) : null;
  } catch (e) {
    broken = e as Error;
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release(broken);
  }
}

/** Forgets the ids of batches older than a day (nobody asks about them: a writer asks within seconds). */
export async function pruneBatchIds(pool: pg.Pool, nowMs: number): Promise<void> {
  await pool.query('DELETE FROM ingest_batches WHERE at_ms < $1', [nowMs - BATCH_ID_KEEP_MS]);
}
