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
const db = new Database(workerData.file);
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
  }

  /** Stops the worker (its connection closes with it); the store's own close checkpoints what is left. */
  stop(): void {
    this.worker.postMessage('close');
  }
}
