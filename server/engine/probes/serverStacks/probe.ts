/**
 * The server-stacks probe (docs/design.md#server-stacks): captures the server's
 * process tree with py-spy
 * - at the first structural timeout (`--capture-server-stacks`), started one
 *   turn after the timer fired, so the breaker's stop and sweep go first and
 *   are never waited on;
 * - when an in-flight request has had no SSE event for S seconds
 *   (`--server-stall-after-s`), then again at most every S seconds while
 *   some request is still silent, at most MAX_NO_PROGRESS times per run.
 * Silence is measured from the engine's events (sent, first token/audio,
 * progress — throttled to one per 250 ms per request, so within 0.25 s).
 * Each capture that read a stack becomes a `server.stacks` event; each
 * distinct failure a `run.warning`. A capture that read nothing is not
 * evidence: it is only its warning, never a stall report, and without py-spy
 * nothing is captured at all (one warning, with what to install).
 * `finish` settles the captures in progress (each killed at its own 5 s
 * limit) and returns the `server_stacks` result key.
 * Below Python (docs/design.md#below-python; `belowPython` set): at the first
 * stall the GPU tool and the kernel log are read once, concurrently with the
 * capture, each under its own deadline; the first capture carries them and
 * so do the result keys `gpu_at_stall` and `kernel_log_at_stall` — also when
 * py-spy is missing, when they are the only evidence there is.
 */
import type { BenchEvent } from '../../../../shared/protocol/protocol.ts';
import type { CompiledRules } from '../../../../shared/stalls/phaseRules.ts';
import { isStallEvidence, type CaptureReason, type ServerStacksReport } from '../../../../shared/stalls/stallReport.ts';
import {
  gpuStateText,
  storableGpu,
  storableKernelLog,
  type GpuAtStall,
  type KernelLogAtStall,
} from '../../../../shared/stalls/gpuState.ts';
import { takeGpuState } from '../gpuState/take.ts';
import { readKernelLog } from '../kernelLog/read.ts';
import { processTree } from './procfs.ts';
import { findOnPath } from '../../../common/onPath.ts';
import type { Preflight } from './preflight.ts';
import type { TimeoutReport } from '../../stopRules/breaker.ts';
import type { ProbeContext, RunProbe } from '../../run/probe.ts';
import { CAPTURE_LIMIT_MS, captureTree, type CaptureOptions } from './capture.ts';
import type { ServerStacksConfig } from './config.ts';
import { missingMessage } from './pySpy.ts';

export const MAX_NO_PROGRESS = 5;

export interface ServerStacksProbeOptions {
  config: ServerStacksConfig;
  pid: number;
  pidSource: 'flag' | 'auto';
  rules: CompiledRules;
  /** Tests: a shorter kill limit. */
  limitMs?: number;
  /** Tests: the capture itself. */
  capture?: typeof captureTree;
  /** Tests: the PATH py-spy is looked up on. */
  path?: string;
  /** Tests: the clock silence is measured on and the timer that checks it (a loaded machine delays real timers). */
  clock?: SilenceClock;
  /** Take the GPU state and the kernel log at the first stall; absent: off. */
  belowPython?: BelowPythonOptions;
  /** What the check before the run found (preflight.ts): said once at the start when stacks cannot work. */
  preflight?: Preflight;
}

/** What silence is measured with: a monotonic clock and a repeating check that can be stopped. */
export interface SilenceClock {
  now(): number;
  every(ms: number, fn: () => void): () => void;
}

const REAL_CLOCK: SilenceClock = {
  now: () => performance.now(),
  every: (ms, fn) => {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  },
};

export interface BelowPythonOptions {
  /** `--gpu-smi PATH`. */
  gpuSmi?: string;
  /** Tests: a shorter deadline for each tool. */
  deadlineMs?: number;
  /** Tests: the PATH the GPU tool and dmesg are looked up on. */
  path?: string;
}

interface BelowPython {
  gpu: GpuAtStall;
  kernel: KernelLogAtStall;
}

export class ServerStacksProbe implements RunProbe {
  private ctx: ProbeContext | null = null;
  /** In-flight requests: index → id and the clock's time of its last SSE event (or its send). */
  private readonly live = new Map<number, { id: string; lastMs: number }>();
  private readonly reports: ServerStacksReport[] = [];
  private readonly notes: string[] = [];
  private readonly pending = new Set<Promise<void>>();
  private stopTimer: (() => void) | null = null;
  private firstTimeoutSeen = false;
  private noProgressCount = 0;
  private noProgressBusy = false;
  private lastNoProgressMs = -Infinity;
  private captures = 0;
  private finished = false;
  /** py-spy is not there: said once at the start, and no capture is attempted. */
  private unavailable = false;
  private startedWallMs = Date.now();
  /** The GPU state and kernel log, read once at the first stall; handed to the first capture. */
  private below: Promise<BelowPython> | null = null;
  private belowResult: BelowPython | null = null;
  private belowHanded = false;

  private readonly clock: SilenceClock;

  constructor(private readonly o: ServerStacksProbeOptions) {
    this.clock = o.clock ?? REAL_CLOCK;
  }

  start(ctx: ProbeContext): void {
    this.ctx = ctx;
    this.startedWallMs = Date.now();
    const pySpy = this.o.config.pySpy ?? 'py-spy';
    if (!findOnPath(pySpy, this.o.path ?? process.env.PATH ?? '')) {
      this.unavailable = true;
      this.note(missingMessage(pySpy));
    } else if (this.o.preflight && !this.o.preflight.ok) this.note(this.o.preflight.message);
    const s = this.o.config.stallAfterS;
    if (s !== undefined) {
      // Often enough to catch S within a tenth of it (at most a second late), cheap: it scans the in-flight map.
      this.stopTimer = this.clock.every(Math.max(50, Math.min(1000, (s * 1000) / 10)), () => this.checkSilence());
    }
  }

  onEvent(e: BenchEvent): void {
    switch (e.type) {
      case 'request.sent':
        this.live.set(e.index, { id: e.requestId, lastMs: this.clock.now() });
        return;
      case 'request.first_token':
      case 'request.first_audio':
      case 'request.progress': {
        const r = this.live.get(e.index);
        if (r) r.lastMs = this.clock.now();
        return;
      }
      case 'request.completed':
      case 'request.failed':
      case 'request.timed_out':
      case 'request.cancelled':
      case 'request.unsent':
        this.live.delete(e.outcome.index);
        return;
      default:
        return;
    }
  }

  onTimeout(r: TimeoutReport): void {
    if (!this.o.config.captureOnTimeout || this.firstTimeoutSeen || this.finished) return;
    this.firstTimeoutSeen = true;
    if (this.unavailable) {
      if (this.o.belowPython)
        this.track(new Promise<void>((resolve) => setImmediate(() => void this.startBelow()?.then(() => resolve()))));
      return;
    }
    const ids = [...this.live.values()].map((x) => x.id);
    const reason: CaptureReason = {
      kind: 'first_timeout',
      requestIndex: r.index,
      requestId: r.requestId,
      timeoutKind: r.kind,
      elapsedS: r.elapsedS,
    };
    // One turn later: the breaker's decision and sweep (queued before us) start first. Pending from
    // now on, so a `finish` that comes sooner still waits for this capture.
    const later = new Promise<void>((resolve) =>
      setImmediate(() => {
        void this.startBelow();
        void this.run(reason, ids.includes(r.requestId) ? ids : [r.requestId, ...ids]).then(resolve);
      }),
    );
    this.track(later);
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.then(() => this.pending.delete(p));
  }

  /** Once per run: the GPU tool and dmesg, concurrently, each under its own deadline (never throws). */
  private startBelow(): Promise<BelowPython> | null {
    const b = this.o.belowPython;
    if (!b || this.below) return this.below;
    let serverPids: Set<number>;
    try {
      serverPids = new Set(processTree(this.o.pid).map((p) => p.pid));
    } catch {
      serverPids = new Set([this.o.pid]);
    }
    this.below = Promise.all([
      takeGpuState({ gpuSmi: b.gpuSmi, serverPids, deadlineMs: b.deadlineMs, path: b.path }),
      readKernelLog({ sinceMs: this.startedWallMs, deadlineMs: b.deadlineMs, path: b.path }),
    ]).then(([rawGpu, rawKernel]) => {
      const gpu = storableGpu(rawGpu);
      const kernel = storableKernelLog(rawKernel);
      this.belowResult = { gpu, kernel };
      this.ctx?.log(`GPU at the stall (${gpu.tool ?? 'no tool'}, ${gpu.took_ms} ms): ${gpuStateText(gpu)}`);
      this.ctx?.log(
        `Kernel log at the stall: ${kernel.lines.length} GPU hang/reset line${kernel.lines.length === 1 ? '' : 's'} since the run started` +
          (kernel.error ? ` (${kernel.error})` : ''),
      );
      return this.belowResult;
    });
    this.track(this.below.then(() => undefined));
    return this.below;
  }

  async finish(): Promise<Record<string, unknown>> {
    this.finished = true;
    this.stopTimer?.();
    this.stopTimer = null;
    while (this.pending.size) await Promise.all([...this.pending]);
    const c = this.o.config;
    return {
      ...(this.o.belowPython
        ? { gpu_at_stall: this.belowResult?.gpu ?? null, kernel_log_at_stall: this.belowResult?.kernel ?? null }
        : {}),
      server_stacks: {
        server_pid: this.o.pid,
        pid_source: this.o.pidSource,
        native: c.native,
        capture_on_timeout: c.captureOnTimeout,
        stall_after_s: c.stallAfterS ?? null,
        captures: this.reports.sort((a, b) => a.capture - b.capture),
        notes: [...this.notes],
      },
    };
  }

  private checkSilence(): void {
    const s = this.o.config.stallAfterS;
    if (s === undefined || this.finished || (this.unavailable && (this.below || !this.o.belowPython))) return;
    if (this.noProgressBusy || this.noProgressCount >= MAX_NO_PROGRESS) return;
    const now = this.clock.now();
    if (now - this.lastNoProgressMs < s * 1000) return;
    let silentMs = 0;
    const ids: string[] = [];
    for (const r of this.live.values()) {
      const quiet = now - r.lastMs;
      if (quiet < s * 1000) continue;
      ids.push(r.id);
      silentMs = Math.max(silentMs, quiet);
    }
    if (ids.length === 0) return;
    void this.startBelow();
    if (this.unavailable) return;
    this.noProgressCount++;
    this.noProgressBusy = true;
    this.lastNoProgressMs = now;
    void this.run({ kind: 'no_progress', afterS: s, silentS: Math.round(silentMs) / 1000 }, ids, () => {
      this.noProgressBusy = false;
    });
  }

  private run(reason: CaptureReason, requestIds: string[], done?: () => void): Promise<void> {
    if (this.finished && reason.kind === 'no_progress') {
      done?.();
      return Promise.resolve();
    }
    const capture = ++this.captures;
    const opts: CaptureOptions = {
      pySpy: this.o.config.pySpy ?? 'py-spy',
      rootPid: this.o.pid,
      native: this.o.config.native,
      rules: this.o.rules,
      limitMs: this.o.limitMs ?? CAPTURE_LIMIT_MS,
    };
    // The first capture waits for the GPU state and the kernel log (read beside it) and carries them.
    const below = !this.belowHanded && this.below ? this.below : null;
    if (below) this.belowHanded = true;
    const p = Promise.all([(this.o.capture ?? captureTree)(opts, { capture, reason, requestIds }), below])
      .then(([report, b]) => {
        if (b) {
          report.gpuAtStall = b.gpu;
          report.kernelLogAtStall = b.kernel;
        }
        for (const n of report.notes) this.note(n);
        if (!isStallEvidence(report)) {
          // Its notes said why (once each); a failure without one still gets its line.
          if (report.notes.length === 0)
            this.note(`server stack capture #${capture} read no stack: ${report.stackError ?? 'no thread was read'}`);
          return;
        }
        this.reports.push(report);
        this.ctx?.emit({ type: 'server.stacks', report });
        const where = report.inferred
          ? `inferred phase ${report.phase} from ${report.inferred.frame.function} (${report.inferred.frame.file}:${report.inferred.frame.line}) in pid ${report.inferred.pid}`
          : 'no phase inferred';
        this.ctx?.log(
          `server stacks #${capture} (${reason.kind === 'first_timeout' ? 'first timeout' : `no SSE event for ${reason.afterS}s`}): ` +
            `${report.processes.length} processes, ${report.processes.reduce((n, x) => n + x.threads.length, 0)} threads in ${report.durationMs} ms; ${where}`,
        );
      })
      .catch((e: unknown) => this.note(`server stack capture #${capture} failed: ${(e as Error).message}`))
      .finally(() => {
        this.pending.delete(p);
        done?.();
      });
    this.pending.add(p);
    return p;
  }

  /** A failure worth saying: once per distinct message, as a run.warning and in the result's notes. */
  private note(message: string): void {
    if (this.notes.includes(message)) return;
    this.notes.push(message);
    this.ctx?.log(`warning: ${message}`);
    this.ctx?.emit({ type: 'run.warning', message: `server stacks: ${message}` });
  }
}
