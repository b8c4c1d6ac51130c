/**
 * The reads the SQLite reader thread answers (readerThread.ts), by name: each takes the thread's read-only
 * connection and plain (structured-cloneable) arguments and returns a plain value. Heavy reads go here so they
 * never hold the dashboard's event loop, where the batched writer stores every reporter's events.
 */
import type Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { SQLITE_IDS } from '../common/boardDetails.ts';
import { boardReply } from '../common/boardReply.ts';
import type { BoardFilter } from '../common/records.ts';
import type { StallscopeDb } from '../common/schema.ts';
import type { BoardPick, StallBoardReply } from '../../../../shared/stalls/stallsApi.ts';
import { versionedBoard, type VersionedBoard } from '../common/boardCache.ts';

const kyselies = new WeakMap<Database.Database, Kysely<StallscopeDb>>();
const kyselyOf = (db: Database.Database) => {
  let k = kyselies.get(db);
  if (!k) kyselies.set(db, (k = new Kysely<StallscopeDb>({ dialect: new SqliteDialect({ database: db }) })));
  return k;
};

/**
 * `read` in one read transaction: WAL gives its statements one snapshot, so no run leaves the board between them.
 * `db` must be a connection nothing else writes on (the reader thread's): a transaction on the store's own
 * connection would take in the writer's statements.
 */
const inSnapshot = <T>(db: Database.Database, read: (trx: Kysely<StallscopeDb>) => Promise<T>): Promise<T> =>
  kyselyOf(db).transaction().execute(read);

export const READER_TASKS = {
  /** `GET /api/stalls`: the board over the newest runs of the filter, counted by the database. */
  board: (
    db: Database.Database,
    a: { filter: BoardFilter; last: number; pick?: BoardPick },
  ): Promise<StallBoardReply> => inSnapshot(db, (trx) => boardReply(trx, SQLITE_IDS, a.filter, a.last, a.pick ?? {})),
  /**
   * The same, as the route's reply serialized (`stallsReply`) — the string crosses to the loop, not the objects —
   * with the board version its snapshot saw (common/boardCache.ts).
   */
  boardJson: (
    db: Database.Database,
    a: { filter: BoardFilter; last: number; pick?: BoardPick },
  ): Promise<VersionedBoard> =>
    inSnapshot(db, (trx) => versionedBoard(trx, SQLITE_IDS, a.filter, a.last, a.pick ?? {})),
  /** Holds the thread for `ms` inside SQLite's own call (tests: a read that is in flight for a known time). */
  hold: (db: Database.Database, a: { ms: number }): number => {
    const until = Date.now() + a.ms;
    let n = 0;
    while (Date.now() < until)
      n += (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n >= 0 ? 1 : 0;
    return n;
  },
};

export type ReaderTask = keyof typeof READER_TASKS;
export type ReaderArgs<K extends ReaderTask> = Parameters<(typeof READER_TASKS)[K]>[1];
export type ReaderResult<K extends ReaderTask> = Awaited<ReturnType<(typeof READER_TASKS)[K]>>;

export type ReaderRequest = { id: number; task: ReaderTask; args: unknown } | { id: 0; task: 'close' };
export type ReaderReply =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; code: string | null; message: string };
