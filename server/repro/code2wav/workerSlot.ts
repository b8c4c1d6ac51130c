/**
 * One Code2Wav worker thread as the main thread sees it: its FIFO of windows,
 * the op it is running, its progress record, and the telemetry of its ops.
 */
import type { Worker } from 'node:worker_threads';
import type { ProgressReader } from '../watchdog/progress.ts';
import type { TelemetryOutbox } from '../telemetry/outbox.ts';
import type { DecodeItem, DecodeSettings, FaultOrder, MainToWorker, WorkerToMain } from './worker/messages.ts';

export interface WindowResult {
  /** WAV bytes; null when the window was cancelled. */
  wav: Uint8Array | null;
  samples: number;
  workerId: number;
  opId: number;
}

export interface PendingWindow {
  item: DecodeItem;
  resolve(r: WindowResult): void;
  reject(err: Error): void;
}

export interface SlotDeps {
  maxBatch: number;
  settings: DecodeSettings;
  telemetry: TelemetryOutbox;
  nextOp(): number;
  decideFault(opId: number): FaultOrder | null;
  onOpEnd(opId: number, endMs: number): void;
  onCrash(): void;
}

interface RunningOp {
  opId: number;
  batch: PendingWindow[];
  requestIds: string[];
  startMs: number;
}

const bucketOf = (i: DecodeItem) => `${i.codes.length - i.contextCodes}|${i.lastChunk}|${i.chunkSeq === 0}`;

export class WorkerSlot {
  readonly requests = new Set<string>();
  readonly ready: Promise<void>;
  readonly threadId: number;
  private queue: PendingWindow[] = [];
  private current: RunningOp | null = null;
  private isReady = false;
  private dead = false;
  private exited: Promise<void>;

  constructor(
    readonly id: number,
    private readonly worker: Worker,
    readonly reader: ProgressReader,
    private readonly deps: SlotDeps,
  ) {
    this.threadId = worker.threadId;
    this.ready = new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) =>
        reject(new Error(`Code2Wav worker ${id} exited before it was ready (code ${code})`)),
      );
      worker.on('message', (m: WorkerToMain) => {
        if (m.type === 'ready') {
          this.isReady = true;
          resolve();
          this.pump();
        } else this.onMessage(m);
      });
    });
    this.ready.catch(() => undefined);
    worker.on('error', (err) => this.fail(err instanceof Error ? err : new Error(String(err))));
    this.exited = new Promise((r) => worker.once('exit', () => r()));
    worker.once('exit', (code) => {
      if (this.dead) return;
      this.dead = true;
      this.fail(new Error(`Code2Wav worker ${id} exited (code ${code})`));
      // Replace a worker that crashed while serving; one that never became
      // ready would only crash again, so that surfaces through `ready` instead.
      if (this.isReady) this.deps.onCrash();
    });
  }

  post(m: MainToWorker): void {
    if (!this.dead) this.worker.postMessage(m);
  }

  queueLength(): number {
    return this.queue.length;
  }

  /** Request ids of the batch of op `opId`, if that op is the one running. */
  requestIdsOf(opId: number): string[] | null {
    return this.current && this.current.opId === opId ? this.current.requestIds : null;
  }

  enqueue(w: PendingWindow): void {
    if (this.dead) return w.reject(new Error(`Code2Wav worker ${this.id} is gone`));
    this.queue.push(w);
    this.pump();
  }

  /** The request's client went away: queued windows are dropped, its row in the running op is skipped. */
  cancel(key: string): void {
    const cancelled = (w: PendingWindow) => w.resolve({ wav: null, samples: 0, workerId: this.id, opId: 0 });
    this.queue = this.queue.filter((w) => (w.item.key === key ? (cancelled(w), false) : true));
    this.current?.batch.forEach((w, row) => {
      if (w.item.key === key) this.reader.cancelRow(row);
    });
  }

  private pump(): void {
    if (!this.isReady || this.dead || this.current || this.queue.length === 0) return;
    const bucket = bucketOf(this.queue[0].item);
    const batch: PendingWindow[] = [];
    // A request's windows must decode in order: once one of its windows is
    // left in the queue (other bucket, or already one in this batch), none of
    // its later windows may jump ahead of it into this batch.
    const passed = new Set<string>();
    this.queue = this.queue.filter((w) => {
      if (batch.length >= this.deps.maxBatch || bucketOf(w.item) !== bucket || passed.has(w.item.key)) {
        passed.add(w.item.key);
        return true;
      }
      batch.push(w);
      passed.add(w.item.key);
      return false;
    });
    const opId = this.deps.nextOp();
    const requestIds = batch.map((w) => w.item.requestId);
    this.current = { opId, batch, requestIds, startMs: Date.now() };
    const t = this.deps.telemetry;
    t.emit({ type: 'worker.busy', workerId: this.id, opId });
    t.emit({ type: 'c2w.op.begin', workerId: this.id, opId, requestIds, batchSize: batch.length });
    this.worker.postMessage({
      type: 'decode',
      opId,
      items: batch.map((w) => w.item),
      settings: this.deps.settings,
      fault: this.deps.decideFault(opId),
    } satisfies MainToWorker);
  }

  private onMessage(m: Exclude<WorkerToMain, { type: 'ready' }>): void {
    const op = this.current;
    if (!op || m.opId !== op.opId) return;
    const t = this.deps.telemetry;
    switch (m.type) {
      case 'phase':
        t.emit({
          type: 'c2w.phase',
          ts: m.ts,
          workerId: this.id,
          opId: op.opId,
          requestIds: op.requestIds,
          phase: m.phase,
          details: m.details,
        });
        return;
      case 'done': {
        this.finish(op, true);
        m.outputs.forEach((o, i) => {
          const w = op.batch[i];
          if (o.error) w.reject(new Error(`Code2Wav could not decode chunk ${w.item.chunkSeq}: ${o.error}`));
          else w.resolve({ wav: o.wav, samples: o.samples, workerId: this.id, opId: op.opId });
        });
        break;
      }
      case 'failed': {
        this.finish(op, false, m.error.message);
        for (const w of op.batch) w.reject(new Error(`Code2Wav decode failed: ${m.error.message}`));
        break;
      }
      default: {
        const never: never = m;
        throw new Error(`unknown worker message ${JSON.stringify(never)}`);
      }
    }
    this.pump();
  }

  private finish(op: RunningOp, ok: boolean, error?: string): void {
    const endMs = Date.now();
    this.current = null;
    const t = this.deps.telemetry;
    t.emit({
      type: 'c2w.op.end',
      workerId: this.id,
      opId: op.opId,
      requestIds: op.requestIds,
      durationMs: endMs - op.startMs,
      ok,
      ...(error ? { error } : {}),
    });
    t.emit({ type: 'worker.idle', workerId: this.id });
    this.deps.onOpEnd(op.opId, endMs);
  }

  private fail(err: Error): void {
    const op = this.current;
    this.current = null;
    if (op) for (const w of op.batch) w.reject(err);
    for (const w of this.queue) w.reject(err);
    this.queue = [];
  }

  /** Terminates the thread (also when it is blocked or spinning) and fails its pending work. */
  async terminate(err: Error): Promise<void> {
    if (this.dead) return this.exited;
    this.dead = true;
    this.fail(err);
    await this.worker.terminate();
    await this.exited;
  }
}
