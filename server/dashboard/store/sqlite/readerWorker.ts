/**
 * The SQLite reader thread's side (readerThread.ts starts it, compiled: dist/.../readerWorker.js): its own
 * read-only connection to the store's file (WAL: it reads a consistent snapshot while the main connection
 * writes), answering one request at a time from READER_TASKS.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { READER_TASKS, type ReaderReply, type ReaderRequest } from './readerTasks.ts';

const { file } = workerData as { file: string };
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 1000');
const post = (r: ReaderReply) => parentPort!.postMessage(r);

/** One task at a time: an async one (the board's transaction) finishes before the next starts on the connection. */
let queue: Promise<void> = Promise.resolve();

async function answer(m: Exclude<ReaderRequest, { task: 'close' }>): Promise<void> {
  try {
    const run = READER_TASKS[m.task] as (d: Database.Database, a: unknown) => unknown;
    post({ id: m.id, ok: true, value: await run(db, m.args) });
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    post({
      id: m.id,
      ok: false,
      code: typeof err.code === 'string' ? err.code : null,
      message: String(err.message ?? e),
    });
  }
}

parentPort!.on('message', (m: ReaderRequest) => {
  queue = queue.then(() => {
    if (m.task !== 'close') return answer(m);
    db.close();
    parentPort!.close();
  });
});
