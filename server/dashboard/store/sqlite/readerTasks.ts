/**
 * The reads the SQLite reader thread answers (readerThread.ts), by name: each takes the thread's read-only
 * connection and plain (structured-cloneable) arguments and returns a plain value. Heavy reads go here so they
 * never hold the dashboard's event loop, where the batched writer stores every reporter's events.
 */
import type Database from 'better-sqlite3';
import { boardView } from '../common/boardView.ts';
import type { BoardFilter } from '../common/records.ts';
import type { StallBoardReply } from '../../../../shared/stalls/stallsApi.ts';
import { boardRuns } from './boardQueries.ts';

export const READER_TASKS = {
  /** `GET /api/stalls`: the newest runs of the filter, folded into the board. */
  board: (db: Database.Database, a: { filter: BoardFilter; last: number }): StallBoardReply =>
    boardView(boardRuns(db, a.filter), a.last),
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
export type ReaderResult<K extends ReaderTask> = ReturnType<(typeof READER_TASKS)[K]>;

export type ReaderRequest = { id: number; task: ReaderTask; args: unknown } | { id: 0; task: 'close' };
export type ReaderReply =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; code: string | null; message: string };
