/**
 * The Code2Wav stage: N worker threads (default one, the stage's single owner
 * thread), each with its own FIFO of windows. A request is pinned to one
 * worker for its whole life (its caches live there). When a worker is free it
 * takes the oldest window plus up to maxBatch−1 more from the same bucket
 * (same window size, same last-chunk flag, same first-chunk flag), at most one
 * per request, so a request's chunks stay in order. One hung decode stalls
 * its worker and everything queued behind it, as on the real server.
 */
import { ProgressReader, createProgressBuffer, MAX_ROWS } from '../watchdog/progress.ts';
import type { TelemetryOutbox } from '../telemetry/outbox.ts';
import type { FaultPlan } from './faults.ts';
import { spawnCode2WavWorker } from './spawn.ts';
import { WorkerSlot, type PendingWindow, type WindowResult } from './workerSlot.ts';
import type { DecodeItem, DecodeSettings } from './worker/messages.ts';

export interface PoolOptions {
  workers: number;
  maxBatch: number;
  modelName: string;
  seed: number;
  settings: DecodeSettings;
  faults: FaultPlan;
  telemetry: TelemetryOutbox;
  /** Requests currently in flight at the server (fault trigger `min-inflight`). */
  inflight: () => number;
  /** Called on every op end (the watchdog turns a reported op's end into `recovered`). */
  onOpEnd?: (workerId: number, opId: number, endMs: number) => void;
}

export interface WorkerHealth {
  id: number;
  busy: boolean;
  /** Epoch ms when the current op began (null when idle). */
  since: number | null;
  opId: number | null;
  phase: string | null;
  inPhaseS: number | null;
  lastProgressAgoS: number | null;
  queued: number;
  requests: number;
}

export class Code2WavPool {
  private readonly slots: WorkerSlot[] = [];
  private readonly affinity = new Map<string, WorkerSlot>();
  private nextOpId = 1;
  private closed = false;

  constructor(private readonly opts: PoolOptions) {
    if (opts.maxBatch > MAX_ROWS) throw new RangeError(`maxBatch must be ≤ ${MAX_ROWS}`);
    for (let id = 0; id < opts.workers; id++) this.slots.push(this.createSlot(id));
  }

  private createSlot(id: number): WorkerSlot {
    const sab = createProgressBuffer();
    const worker = spawnCode2WavWorker({
      workerId: id,
      modelName: this.opts.modelName,
      seed: this.opts.seed,
      progress: sab,
    });
    return new WorkerSlot(id, worker, new ProgressReader(sab), {
      maxBatch: this.opts.maxBatch,
      settings: this.opts.settings,
      telemetry: this.opts.telemetry,
      nextOp: () => this.nextOpId++,
      decideFault: (opId) => this.opts.faults.decide(opId, this.opts.inflight()),
      onOpEnd: (opId, endMs) => this.opts.onOpEnd?.(id, opId, endMs),
      onCrash: () => {
        if (!this.closed) void this.replace(id, 'worker exited unexpectedly');
      },
    });
  }

  /** Resolves once every worker has loaded its model. */
  ready(): Promise<void> {
    return Promise.all(this.slots.map((s) => s.ready)).then(() => undefined);
  }

  /** Queues a window of request `key`; resolves with its audio once decoded. */
  submit(item: DecodeItem): Promise<WindowResult> {
    let slot = this.affinity.get(item.key);
    if (!slot) {
      slot = this.leastLoaded();
      this.affinity.set(item.key, slot);
      slot.requests.add(item.key);
    }
    return new Promise((resolve, reject) => slot.enqueue({ item, resolve, reject } satisfies PendingWindow));
  }

  /** The request is over (finished or its client left): drop its queued work and caches. */
  release(key: string, cancelled: boolean): void {
    const slot = this.affinity.get(key);
    if (!slot) return;
    this.affinity.delete(key);
    slot.requests.delete(key);
    if (cancelled) slot.cancel(key);
    slot.post({ type: 'release', keys: [key] });
  }

  private leastLoaded(): WorkerSlot {
    return this.slots.reduce((a, b) => (b.requests.size < a.requests.size ? b : a));
  }

  /** What the watchdog monitors: each worker's thread id and progress record. */
  workers(): ReadonlyArray<WorkerSlot> {
    return this.slots;
  }

  health(now = Date.now()): WorkerHealth[] {
    return this.slots.map((s) => {
      const p = s.reader.snapshot();
      return {
        id: s.id,
        busy: p.busy,
        since: p.busy ? p.opStartMs : null,
        opId: p.busy ? p.opId : null,
        phase: p.busy ? p.phase : null,
        inPhaseS: p.busy ? (now - p.phaseStartMs) / 1000 : null,
        lastProgressAgoS: p.busy ? (now - p.lastProgressMs) / 1000 : null,
        queued: s.queueLength(),
        requests: s.requests.size,
      };
    });
  }

  /**
   * Terminates and replaces workers that are busy without progress for at
   * least `stalledForMs` (0: every busy worker). Their requests fail: their
   * caches died with the thread.
   */
  async reset(stalledForMs = 0, now = Date.now()): Promise<number[]> {
    const hung = this.slots.filter((s) => {
      const p = s.reader.snapshot();
      return p.busy && now - p.lastProgressMs >= stalledForMs;
    });
    await Promise.all(hung.map((s) => this.replace(s.id, 'Code2Wav worker was reset; its request caches are lost')));
    return hung.map((s) => s.id);
  }

  private async replace(id: number, why: string): Promise<void> {
    const old = this.slots[id];
    for (const key of old.requests) this.affinity.delete(key);
    await old.terminate(new Error(why));
    if (this.closed) return;
    this.slots[id] = this.createSlot(id);
    await this.slots[id].ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.terminate(new Error('Code2Wav stage shut down'))));
    this.affinity.clear();
  }
}
