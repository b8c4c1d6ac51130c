/**
 * Heavy SQLite reads off the dashboard's event loop (docs/design.md#stall-board). better-sqlite3 is
 * synchronous: a 5,000-run board read on the main connection held the loop for hundreds of milliseconds,
 * and every reporter's batch waited behind it. This thread (readerWorker.ts) has its own read-only
 * connection; requests queue here (at most `maxQueue`: more are refused with STORE_BUSY, never piled up),
 * each with a deadline: one past it is refused with STORE_READ_TIMEOUT and the thread — stuck inside
 * SQLite, which cannot be interrupted from here — is terminated; the requests behind it go to a fresh one.
 * close() ends the thread (terminated if it has not exited within a second).
 */
import { Worker } from 'node:worker_threads';
import { ERRORS, StallscopeError, type ErrorCode } from '../../../../shared/errors.ts';
import { compiledModule } from '../../../common/packageRoot.ts';
import { SharedReads } from '../common/sharedReads.ts';
import type { ReaderArgs, ReaderReply, ReaderResult, ReaderTask } from './readerTasks.ts';

/** Compiled, like the import's parse worker: no TypeScript loader in the thread (tests rebuild a stale dist/). */
const ENTRY = compiledModule('server/dashboard/store/sqlite/readerWorker.js');

export interface ReaderOptions {
  /** Requests waiting or running at once; more are refused (STORE_BUSY, 503). */
  maxQueue?: number;
  /** How long one request may wait and run. */
  deadlineMs?: number;
}

interface Pending {
  task: ReaderTask;
  args: unknown;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class ReaderThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing = false;
  private readonly maxQueue: number;
  private readonly deadlineMs: number;
  /** Each started thread's exit, until it has exited: close() awaits the ones still running. */
  private readonly exits = new Set<Promise<void>>();

  constructor(
    private readonly file: string,
    opts: ReaderOptions = {},
  ) {
    this.maxQueue = opts.maxQueue ?? 32;
    this.deadlineMs = opts.deadlineMs ?? 20_000;
  }

  /** Threads started and not yet exited (tests: none after close; one replaced at a deadline is gone too). */
  get liveThreads(): number {
    return this.exits.size;
  }

  /** Reads in flight by task and arguments: viewers polling the same board share one read, not one each. */
  private readonly inFlight = new SharedReads<unknown>();

  read<K extends ReaderTask>(task: K, args: ReaderArgs<K>): Promise<ReaderResult<K>> {
    return this.inFlight.share(`${task}\u0000${JSON.stringify(args)}`, () => this.start(task, args)) as Promise<
      ReaderResult<K>
    >;
  }

  private start<K extends ReaderTask>(task: K, args: ReaderArgs<K>): Promise<ReaderResult<K>> {
    if (this.closing) return Promise.reject(new StallscopeError('STORE_UNAVAILABLE', 'the store is closing'));
    if (this.pending.size >= this.maxQueue)
      return Promise.reject(new StallscopeError('STORE_BUSY', `${this.pending.size} reads are already waiting`));
    const id = this.nextId++;
    return new Promise<ReaderResult<K>>((resolve, reject) => {
      const timer = setTimeout(() => this.expire(id), this.deadlineMs);
      this.pending.set(id, { task, args, resolve: resolve as (v: unknown) => void, reject, timer });
      this.thread().postMessage({ id, task, args });
    });
  }

  /** Ends the thread: it closes its connection and exits, or is terminated after a second. */
  async close(): Promise<void> {
    this.closing = true;
    for (const [id, p] of this.pending)
      this.settle(id, p, new StallscopeError('STORE_UNAVAILABLE', 'the store closed'));
    const w = this.worker;
    this.worker = null;
    if (w) {
      w.postMessage({ id: 0, task: 'close' });
      const deadline = setTimeout(() => void w.terminate(), 1000);
      await Promise.all([...this.exits]);
      clearTimeout(deadline);
    }
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    // execArgv: [] keeps a parent's `--import tsx` (tests, bench) out of the thread: it runs compiled code.
    const w = new Worker(ENTRY, { execArgv: [], workerData: { file: this.file }, name: 'sqlite-reader' });
    this.worker = w;
    const exited: Promise<void> = new Promise((resolve) =>
      w.once('exit', () => {
        this.exits.delete(exited);
        resolve();
      }),
    );
    this.exits.add(exited);
    w.on('message', (r: ReaderReply) => this.answer(r));
    // A thread that dies (cannot open the file, runs out of memory) fails what it held; the next read starts another.
    const lost = (why: string) => {
      if (this.worker !== w) return;
      this.worker = null;
      for (const [id, p] of this.pending) this.settle(id, p, new StallscopeError('STORE_UNAVAILABLE', why));
    };
    w.on('error', (e) => lost(`the reader thread failed: ${e.message}`));
    w.once('exit', (code) => lost(`the reader thread exited (${code})`));
    return w;
  }

  private answer(r: ReaderReply): void {
    const p = this.pending.get(r.id);
    if (!p) return; // already refused at its deadline
    if (r.ok) {
      this.pending.delete(r.id);
      clearTimeout(p.timer);
      p.resolve(r.value);
    } else this.settle(r.id, p, readError(r.code, r.message));
  }

  private expire(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.settle(id, p, new StallscopeError('STORE_READ_TIMEOUT', `${p.task} ran past ${this.deadlineMs} ms`));
    // The thread is inside one synchronous SQLite call: only terminating it stops the read.
    const stuck = this.worker;
    this.worker = null;
    void stuck?.terminate();
    for (const [rid, q] of this.pending) this.thread().postMessage({ id: rid, task: q.task, args: q.args });
  }

  private settle(id: number, p: Pending, e: Error): void {
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.reject(e);
  }
}

/** The thread's error, as the table's code: SQLite's own codes mean the store, not the request. */
function readError(code: string | null, message: string): Error {
  if (code && code in ERRORS) return new StallscopeError(code as ErrorCode, message);
  if (code === 'SQLITE_BUSY') return new StallscopeError('STORE_BUSY', message);
  if (code?.startsWith('SQLITE_')) return new StallscopeError('STORE_UNAVAILABLE', `${code}: ${message}`);
  return new Error(message);
}
