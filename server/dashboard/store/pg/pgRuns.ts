/**
 * The PostgreSQL store's run reads (pgReads.ts) and one-off writes: a run's
 * update follows the events queued before it, in the writer's order, and an
 * end is told to the other processes in the same transaction.
 */
import type { RequestRow } from '../../../../shared/protocol/apiSchemas.ts';
import type { Kysely } from 'kysely';
import type { BoardPick } from '../../../../shared/stalls/stallsApi.ts';
import { BoardCache, boardKey, boardVersion, versionedBoard, type VersionedBoard } from '../common/boardCache.ts';
import { PG_IDS } from '../common/boardDetails.ts';
import { boardReply } from '../common/boardReply.ts';
import type { OneRead } from '../common/metricsQueries.ts';
import { SharedReads } from '../common/sharedReads.ts';
import type { StallscopeDb } from '../common/schema.ts';
import type { RequestPages } from '../common/requestPages.ts';
import type { BoardFilter, NewRun, RowSlice, RunFilter, RunUpdate, StoredEvent } from '../common/records.ts';
import type { BoardReads, RunReads, RunWrites } from '../common/storeApi.ts';
import { readSnapshot, type Query, type Transaction } from './pgQuery.ts';
import * as reads from './pgReads.ts';
import type { PgWriter } from './pgWriter.ts';
import { insertRunSql, updateSql } from './pgWrites.ts';

export class PgRuns implements RunReads, RunWrites {
  constructor(
    private readonly q: Query,
    private readonly tx: Transaction,
    private readonly writer: PgWriter,
    private readonly pages: RequestPages,
    /** This process's id: the owner of the runs it inserts, and in its NOTIFY payloads. */
    private readonly instance: number,
  ) {}

  async exists(id: string): Promise<boolean> {
    return (await this.q('SELECT 1 FROM runs WHERE id = $1', [id])).length > 0;
  }
  async runningIds(): Promise<string[]> {
    return (await this.q<{ id: string }>(`SELECT id FROM runs WHERE status = 'running'`)).map((r) => r.id);
  }
  list(f: RunFilter) {
    return reads.listRuns(this.q, f);
  }
  get(id: string) {
    return reads.getRun(this.q, id);
  }
  result(id: string) {
    return reads.runResult(this.q, id);
  }
  stallReports(id: string) {
    return reads.stallReports(this.q, id);
  }
  async requests(id: string, offset: number, limit: number, status?: string) {
    const { total, json } = await this.pages.page(id, { offset, limit, status });
    return { total, requests: json.map((s) => JSON.parse(s) as RequestRow) };
  }
  requestsJson(id: string, offset: number, limit: number, status?: string) {
    return this.pages.page(id, { offset, limit, status });
  }
  eventsAfter(id: string, after: number, limit: number): Promise<StoredEvent[]> {
    return reads.eventsAfter(this.q, id, after, limit);
  }

  async insertRun(n: NewRun): Promise<void> {
    await this.tx((c) => insertRunSql(c, n, this.instance));
  }
  update(id: string, f: RunUpdate): Promise<void> {
    // After the events queued before it (the final state follows the last event), in the writer's order.
    return this.writer.enqueue(async (c) => {
      await updateSql(c, id, f);
      if (f.status && f.status !== 'running')
        await c.query(`SELECT pg_notify('stallscope', $1)`, [
          JSON.stringify({ i: this.instance, k: 'runs', r: id, st: f.status }),
        ]);
    });
  }
  async writeResultPart(id: string, part: number, text: string): Promise<void> {
    await this.q(
      `INSERT INTO run_results (run_id, part, text) VALUES ($1,$2,$3)
       ON CONFLICT (run_id, part) DO UPDATE SET text = excluded.text`,
      [id, part, text],
    );
  }
  async delete(id: string): Promise<boolean> {
    return (await this.q('DELETE FROM runs WHERE id = $1 RETURNING id', [id])).length > 0;
  }
  async insertWhole(n: NewRun, f: RunUpdate): Promise<void> {
    await this.tx(async (c) => {
      await insertRunSql(c, n, this.instance);
      await updateSql(c, n.id, f);
    });
  }
  async writeRows(runId: string, rows: RowSlice): Promise<void> {
    await this.q(
      `INSERT INTO requests (run_id, idx, row_json, status)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[])
       ON CONFLICT (run_id, idx) DO UPDATE SET row_json = excluded.row_json, status = excluded.status`,
      [runId, rows.index, rows.json, rows.status],
    );
  }
}

export class PgBoard implements BoardReads {
  /** The board's statements in one read-only snapshot (no run leaves between them). */
  private readonly snapshot: OneRead;

  constructor(
    private readonly q: Query,
    private readonly kysely: Kysely<StallscopeDb>,
  ) {
    this.snapshot = readSnapshot(kysely);
  }

  runs(f: BoardFilter) {
    return reads.boardRuns(this.q, f);
  }

  /** The boards served, each with the version it was read at (common/boardCache.ts). */
  private readonly cache = new BoardCache();

  /**
   * Board reads in flight, by board and the version their askers saw: viewers polling alike after a change share
   * one read (five viewers' five ~0.6 s counts at once held PostgreSQL's cores and every reporter's batch behind them).
   */
  private readonly inFlight = new SharedReads<VersionedBoard>();

  async viewJson(f: BoardFilter, last: number, pick: BoardPick = {}) {
    const key = boardKey(f, last, pick);
    // Any process's write moves the version: a board kept here is served only while nothing it reads has changed.
    const seen = await boardVersion(this.kysely);
    const hit = this.cache.get(key, seen);
    if (hit !== null) return hit;
    // Shared only among askers that saw the same version, so none is served a board older than the one it read.
    const board = await this.inFlight.share(`${seen}\u0000${key}`, () =>
      this.snapshot((trx) => versionedBoard(trx, PG_IDS, f, last, pick)),
    );
    this.cache.set(key, board);
    return board.json;
  }

  /** The board counted by the database, its statements in one read-only snapshot (no run leaves between them). */
  view(f: BoardFilter, last: number, pick?: BoardPick) {
    return this.snapshot((trx) => boardReply(trx, PG_IDS, f, last, pick));
  }
}
