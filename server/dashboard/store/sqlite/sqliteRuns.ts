/** The SQLite store's run reads and one-off writes: the synchronous queries (runQueries.ts) behind the async roles. */
import type Database from 'better-sqlite3';
import type { RequestRow } from '../../../../shared/protocol/apiSchemas.ts';
import type { Kysely } from 'kysely';
import { StallscopeError } from '../../../../shared/errors.ts';
import { stallsReply, type BoardPick, type StallBoardReply } from '../../../../shared/stalls/stallsApi.ts';
import { SQLITE_IDS } from '../common/boardDetails.ts';
import { boardReply } from '../common/boardReply.ts';
import { BoardCache, boardKey } from '../common/boardCache.ts';
import type { StallscopeDb } from '../common/schema.ts';
import type { RequestPages } from '../common/requestPages.ts';
import type { BoardFilter, NewRun, RowSlice, RunFilter, RunUpdate, StoredEvent } from '../common/records.ts';
import type { BoardReads, RunReads, RunWrites } from '../common/storeApi.ts';
import { boardRuns } from './boardQueries.ts';
import type { ReaderThread } from './readerThread.ts';
import type { RunQueries } from './runQueries.ts';
import type { SqliteIngest } from './sqliteIngest.ts';

export class SqliteRuns implements RunReads, RunWrites {
  constructor(
    private readonly db: Database.Database,
    private readonly runs: RunQueries,
    private readonly pages: RequestPages,
    private readonly ingest: SqliteIngest,
  ) {}

  async exists(id: string): Promise<boolean> {
    return this.runs.exists(id);
  }
  async runningIds(): Promise<string[]> {
    return (this.db.prepare(`SELECT id FROM runs WHERE status = 'running'`).all() as { id: string }[]).map((r) => r.id);
  }
  async list(f: RunFilter) {
    return this.runs.list(f);
  }
  async get(id: string) {
    return this.runs.get(id);
  }
  async result(id: string) {
    return this.runs.result(id);
  }
  async stallReports(id: string) {
    return this.runs.stallReports(id);
  }
  async requests(id: string, offset: number, limit: number, status?: string) {
    const { total, json } = await this.pages.page(id, { offset, limit, status });
    return { total, requests: json.map((s) => JSON.parse(s) as RequestRow) };
  }
  requestsJson(id: string, offset: number, limit: number, status?: string) {
    return this.pages.page(id, { offset, limit, status });
  }
  async eventsAfter(id: string, after: number, limit: number): Promise<StoredEvent[]> {
    return this.runs.eventsAfter(id, after, limit);
  }

  async insertRun(n: NewRun): Promise<void> {
    this.runs.insertRun(n);
  }
  async update(id: string, f: RunUpdate): Promise<void> {
    this.runs.update(id, f);
  }
  async writeResultPart(id: string, part: number, text: string): Promise<void> {
    this.runs.writeResultPart(id, part, text);
  }
  async delete(id: string): Promise<boolean> {
    this.ingest.forget(id);
    return this.runs.delete(id);
  }
  async insertWhole(n: NewRun, f: RunUpdate): Promise<void> {
    this.db.transaction(() => {
      this.runs.insertRun(n);
      this.runs.update(n.id, f);
    })();
  }
  async writeRows(runId: string, rows: RowSlice): Promise<void> {
    this.runs.writeRowSlice(runId, rows);
  }
}

export class SqliteBoard implements BoardReads {
  /** `reader` null (an in-memory database, which no other connection can open): the board is read here. */
  constructor(
    private readonly db: Database.Database,
    private readonly kysely: Kysely<StallscopeDb>,
    private readonly reader: ReaderThread | null,
  ) {
    this.readVersion = db.prepare('SELECT v FROM board_version WHERE id = 1');
  }

  async runs(f: BoardFilter) {
    return boardRuns(this.db, f);
  }

  /** The boards served, each with the version it was read at (common/boardCache.ts). */
  private readonly cache = new BoardCache();
  private readonly readVersion: Database.Statement;

  /** The database's board version, read on the store's connection (one row, synchronous: microseconds). */
  private version(): number {
    return (this.readVersion.get() as { v: number }).v;
  }

  async viewJson(f: BoardFilter, last: number, pick: BoardPick = {}): Promise<string> {
    const key = boardKey(f, last, pick);
    const seen = this.version();
    const hit = this.cache.get(key, seen);
    if (hit !== null) return hit;
    const reader = this.reader;
    if (!reader) {
      // In memory: the board is read on the store's own connection, between the writer's statements (view), and
      // kept only when no write came between its statements (the version before and after the same).
      const json = JSON.stringify(stallsReply(await this.view(f, last, pick)));
      if (this.version() === seen) this.cache.set(key, { version: seen, json });
      return json;
    }
    const read = () => reader.read('boardJson', { filter: f, last, pick });
    let board = await read();
    // The reader thread shares a read among viewers asking alike: one begun before a change this request already
    // saw is read again, so no viewer is served a board older than the version it read.
    if (board.version < seen) board = await read();
    this.cache.set(key, board);
    return board.json;
  }

  async view(f: BoardFilter, last: number, pick: BoardPick = {}): Promise<StallBoardReply> {
    if (this.reader) return this.reader.read('board', { filter: f, last, pick });
    // The one connection is also the writer's: no read transaction here (it would take in the writer's
    // statements), so a run deleted between two statements is read again, at most twice more.
    for (let attempt = 1; ; attempt++)
      try {
        return await boardReply(this.kysely, SQLITE_IDS, f, last, pick);
      } catch (e) {
        if (attempt >= 3 || !(e instanceof StallscopeError && e.code === 'BOARD_CHANGED')) throw e;
      }
  }
}
