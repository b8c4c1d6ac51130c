/**
 * The PostgreSQL store's start-up and moves: a restarting dashboard marks
 * interrupted only the running runs whose owner process is gone (its
 * advisory lock is free); a run's events and stall rows are read and written
 * as stored for `stallscope db`.
 */
import type pg from 'pg';
import type { RunEvent, RunState } from '../../../../shared/protocol/protocol.ts';
import type { StallRow, StoredEvent } from '../common/records.ts';
import type { StoreAdmin } from '../common/storeApi.ts';
import { OWNER_LOCK_CLASS } from './pgListener.ts';
import type { Query, Transaction } from './pgQuery.ts';
import * as reads from './pgReads.ts';
import { updateSql } from './pgWrites.ts';

export class PgAdmin implements StoreAdmin {
  constructor(
    private readonly q: Query,
    private readonly tx: Transaction,
    private readonly instance: number,
  ) {}

  /** Running runs whose owner process is gone (its advisory lock is free) become interrupted. */
  async recoverInterrupted(now: number): Promise<string[]> {
    const running = await reads.runningByOwner(this.q);
    const owners = new Map<number | null, boolean>();
    const ids: string[] = [];
    for (const r of running) {
      if (r.owner === this.instance) continue;
      if (!owners.has(r.owner)) owners.set(r.owner, r.owner === null || !(await this.ownerAlive(r.owner)));
      if (!owners.get(r.owner)) continue;
      await this.tx((c) => interruptRun(c, r.id, now));
      ids.push(r.id);
    }
    return ids;
  }

  /** Whether the process `owner` still holds its lock (taking it means it is free, and it is given back). */
  private async ownerAlive(owner: number): Promise<boolean> {
    const [r] = await this.q<{ got: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS got', [OWNER_LOCK_CLASS, owner]);
    if (r.got) await this.q('SELECT pg_advisory_unlock($1, $2)', [OWNER_LOCK_CLASS, owner]);
    return !r.got;
  }

  async allRunIds(): Promise<string[]> {
    return (await this.q<{ id: string }>('SELECT id FROM runs ORDER BY ord')).map((r) => r.id);
  }
  async writeEvents(runId: string, events: readonly StoredEvent[]): Promise<void> {
    if (!events.length) return;
    await this.tx(async (c) => {
      await c.query(
        `INSERT INTO events (run_id, seq, json) SELECT $1, * FROM unnest($2::bigint[], $3::text[])
         ON CONFLICT DO NOTHING`,
        [runId, events.map((e) => e.seq), events.map((e) => e.json)],
      );
      await c.query('UPDATE runs SET last_seq = GREATEST(last_seq, $2) WHERE id = $1', [
        runId,
        events[events.length - 1].seq,
      ]);
    });
  }
  stallRows(runId: string): Promise<StallRow[]> {
    return reads.stallRows(this.q, runId);
  }
  async writeStallRows(runId: string, rows: readonly StallRow[]): Promise<void> {
    await this.tx(async (c) => {
      for (const r of rows)
        await c.query(
          `INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, recovered_json, fingerprint,
            fingerprint_json) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING`,
          [runId, r.workerId, r.opId, r.seq, r.phase, r.reportJson, r.recoveredJson, r.fingerprint, r.fingerprintJson],
        );
    });
  }
}

async function interruptRun(c: pg.ClientBase, id: string, now: number): Promise<void> {
  const r = await c.query<{ last_seq: number; state_json: string | null }>(
    'UPDATE runs SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq, state_json',
    [id],
  );
  const seq = r.rows[0].last_seq;
  const prev = r.rows[0].state_json ? (JSON.parse(r.rows[0].state_json) as RunState) : null;
  const ev: RunEvent = {
    type: 'run.status',
    t: 0,
    status: 'interrupted',
    message: 'the dashboard stopped while this run was running',
  };
  await c.query('INSERT INTO events (run_id, seq, json) VALUES ($1,$2,$3) ON CONFLICT DO NOTHING', [
    id,
    seq,
    JSON.stringify(ev),
  ]);
  await c.query('DELETE FROM run_results WHERE run_id = $1 AND (SELECT result_parts FROM runs WHERE id = $1) IS NULL', [
    id,
  ]);
  const state = prev
    ? { ...prev, status: 'interrupted' as const, seq, inFlight: 0, verdict: prev.verdict ?? 'interrupted' }
    : undefined;
  await updateSql(c, id, {
    status: 'interrupted',
    verdict: state?.verdict ?? 'interrupted',
    finishedAtMs: now,
    state,
  });
}
