/**
 * The no-progress watchdog. It lives in the main thread (a hung worker
 * cannot report itself) and polls each worker's progress record. When an
 * op has made no progress for the timeout, it pauses the worker through the
 * inspector, re-checks — while the worker is paused, so nothing can move —
 * that the same op is still at the same progress point, reads the stack,
 * resumes, and reports once per op. Work that completes, even right at the
 * deadline, changes the progress counter first and is never reported. A
 * reported op that completes later yields `recovered`.
 */
import type { WatchdogStallReport } from '../../../shared/types.ts';
import type { TelemetryInput } from '../telemetry/outbox.ts';
import type { ProgressReader } from './progress.ts';
import { InspectorLink, type CaptureResult } from './inspectorLink.ts';
import { formatStallReport } from './report.ts';

export interface MonitoredWorker {
  readonly id: number;
  readonly threadId: number;
  readonly reader: ProgressReader;
  requestIdsOf(opId: number): string[] | null;
}

export interface MonitorOptions {
  timeoutS: number;
  model: string;
  workers: () => ReadonlyArray<MonitoredWorker>;
  emit: (e: TelemetryInput) => void;
  log: (block: string) => void;
  pollMs?: number;
  capture?: (threadId: number, whilePaused: () => boolean) => Promise<CaptureResult>;
  /** Observes every report (tests, the server's /health). */
  onReport?: (r: WatchdogStallReport) => void;
  /** Wall clock (epoch ms), injectable for tests; the workers publish on the same clock. */
  now?: () => number;
}

interface Reported {
  lastProgressMs: number;
  requestIds: string[];
}

export class WatchdogMonitor {
  private timer: NodeJS.Timeout | null = null;
  /** Captures in progress, at most one per worker; workers are investigated concurrently. */
  private readonly capturing = new Map<number, Promise<void>>();
  private readonly reported = new Map<string, Reported>();
  private readonly timeoutMs: number;
  private readonly capture: NonNullable<MonitorOptions['capture']>;
  /** The inspector link (absent when a capture function is injected). */
  private readonly link: InspectorLink | null;
  private readonly prepared = new Set<number>();
  reports = 0;

  constructor(private readonly opts: MonitorOptions) {
    this.timeoutMs = opts.timeoutS * 1000;
    this.link = opts.capture ? null : new InspectorLink();
    this.capture = opts.capture ?? ((id, check) => this.link!.capture(id, check));
  }

  /** Attaches the debugger to workers not seen yet (new or replaced), ahead of any stall. */
  private prepareWorkers(): void {
    if (!this.link || !this.timer) return;
    for (const w of this.opts.workers()) {
      if (this.prepared.has(w.threadId)) continue;
      this.prepared.add(w.threadId);
      this.link.prepare(w.threadId).catch(() => this.prepared.delete(w.threadId));
    }
  }

  start(): void {
    const poll = this.opts.pollMs ?? Math.min(50, Math.max(5, this.timeoutMs / 10));
    this.timer = setInterval(() => {
      this.prepareWorkers();
      void this.poll();
    }, poll);
    this.prepareWorkers();
  }

  /** The pool saw op `opId` of `workerId` end; a reported op becomes `recovered`. */
  opEnded(workerId: number, opId: number, endMs: number): void {
    const key = `${workerId}:${opId}`;
    const r = this.reported.get(key);
    if (!r) return;
    this.reported.delete(key);
    this.opts.emit({
      type: 'watchdog.recovered',
      workerId,
      opId,
      requestIds: r.requestIds,
      stalledS: (endMs - r.lastProgressMs) / 1000,
    });
  }

  /** One poll over every worker; the timer calls it. Resolves when the captures it started are done. */
  poll(): Promise<void> {
    const now = (this.opts.now ?? Date.now)();
    const started: Promise<void>[] = [];
    for (const w of this.opts.workers()) {
      if (this.capturing.has(w.id)) continue;
      const snap = w.reader.snapshot();
      if (!snap.busy || this.reported.has(`${w.id}:${snap.opId}`)) continue;
      const deadlineMs = snap.lastProgressMs + this.timeoutMs;
      if (now < deadlineMs) continue;
      const p = this.investigate(w, snap.opId, snap.counter, deadlineMs)
        .catch((err) =>
          this.opts.log(`[stallscope watchdog] investigation of worker ${w.id} failed: ${(err as Error).message}`),
        )
        .finally(() => this.capturing.delete(w.id));
      this.capturing.set(w.id, p);
      started.push(p);
    }
    return Promise.all(started).then(() => undefined);
  }

  private async investigate(w: MonitoredWorker, opId: number, counter: number, deadlineMs: number): Promise<void> {
    const requestIds = w.requestIdsOf(opId) ?? [];
    let snap = w.reader.snapshot();
    const still = () => {
      snap = w.reader.snapshot();
      return snap.busy && snap.opId === opId && snap.counter === counter;
    };
    const cap = await this.capture(w.threadId, still);
    // Without a pause there is no frozen state to trust: re-check now instead.
    const stalled = cap.capturedAtMs > 0 ? cap.verified : still();
    if (!stalled) return; // it moved on (or completed): not a stall
    const at = cap.capturedAtMs || (this.opts.now ?? Date.now)();
    const report: WatchdogStallReport = {
      model: this.opts.model,
      workerId: w.id,
      opId,
      requestIds,
      phase: snap.phase ?? 'unknown',
      details: snap.details,
      inPhaseS: (at - snap.phaseStartMs) / 1000,
      inOpS: (at - snap.opStartMs) / 1000,
      capturedAtMs: at,
      deadlineMs,
      stack: cap.frames,
      ...(cap.error ? { stackError: cap.error } : {}),
    };
    this.reported.set(`${w.id}:${opId}`, { lastProgressMs: snap.lastProgressMs, requestIds });
    this.reports++;
    this.opts.emit({ type: 'watchdog.stall', report });
    this.opts.log(formatStallReport(report, this.opts.timeoutS));
    this.opts.onReport?.(report);
  }

  /** Stops polling and waits for a capture in progress; leaves no timer or session behind. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.capturing.values());
    await this.link?.close();
    this.prepared.clear();
    this.reported.clear();
  }
}
