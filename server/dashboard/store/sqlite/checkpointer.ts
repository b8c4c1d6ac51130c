/**
 * Moves WAL checkpoints (copying committed pages into the database file, with
 * an fsync) off the main thread: a worker with its own connection runs a
 * PASSIVE checkpoint every `intervalMs`, which never blocks the writer. The
 * main connection's auto-checkpoint is off, so a commit on the live path never
 * pays for one. Closing the store checkpoints fully on the main connection.
 */
import { Worker } from 'node:worker_threads';

const CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
let db;
try {
  db = new Database(workerData.file);
} catch {
  // The store closed (and its folder may be gone) before this thread started:
  // nothing to checkpoint, and the store's own close checkpoints fully.
  process.exit(0);
}
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* the next tick retries */ }
}, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export class Checkpointer {
  private readonly worker: Worker;

  constructor(file: string, intervalMs = 250) {
    const module = import.meta.resolve('better-sqlite3').replace(/^file:\/\//, '');
    this.worker = new Worker(CODE, {
      eval: true,
      workerData: { file, intervalMs, module: decodeURIComponent(module) },
    });
    this.worker.unref();
    // Checkpointing here is only an optimisation (the store's close checkpoints
    // fully): a failure in this thread must never take the dashboard down.
    this.worker.on('error', () => undefined);
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /**
   * Stops the worker: it closes its connection and exits; one that has not
   * within a second (a checkpoint stuck behind a lock) is terminated, so no
   * thread outlives the store for long. SQLite's WAL makes either end safe.
   */
  stop(): void {
    // Held from here on (unref'd while it runs): a caller awaiting `exited`
    // as its last work must not see the event loop empty first (Node exits
    // 13, "unsettled top-level await", from the bin's await).
    this.worker.ref();
    this.worker.postMessage('close');
    const deadline = setTimeout(() => void this.worker.terminate(), 1000);
    deadline.unref();
    void this.exited.then(() => clearTimeout(deadline));
  }

  /** Settles when the thread has exited (after stop(): at most about a second). */
  readonly exited: Promise<void>;
}
