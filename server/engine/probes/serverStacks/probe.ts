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
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { BenchEvent } from '../../../../shared/protocol/protocol.ts';
import type { CompiledRules } from '../../../../shared/stalls/phaseRules.ts';
import { isStallEvidence, type CaptureReason, type ServerStacksReport } from '../../../../shared/stalls/stallReport.ts';
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
}

export class ServerStacksProbe implements RunProbe {
  private ctx: ProbeContext | null = null;
  /** In-flight requests: index → id and the performance.now() of its last SSE event (or its send). */
  private readonly live = new Map<number, { id: string; lastMs: number }>();
  private readonly reports: ServerStacksReport[] = [];
  private readonly notes: string[] = [];
  private readonly pending = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private firstTimeoutSeen = false;
  private noProgressCount = 0;
  private noProgressBusy = false;
  private lastNoProgressMs = -Infinity;
  private captures = 0;
  private finished = false;
  /** py-spy is not there: said once at the start, and no capture is attempted. */
  private unavailable = false;

  constructor(private readonly o: ServerStacksProbeOptions) {}

  start(ctx: ProbeContext): void {
    this.ctx = ctx;
    const pySpy = this.o.config.pySpy ?? 'py-spy';
    if (!onPath(pySpy, this.o.path ?? process.env.PATH ?? '')) {
      this.unavailable = true;
      this.note(missingMessage(pySpy));
    }
    const s = this.o.config.stallAfterS;
    if (s !== undefined) {
      // Often enough to catch S within a tenth of it (at most a second late), cheap: it scans the in-flight map.
      this.timer = setInterval(() => this.checkSilence(), Math.max(50, Math.min(1000, (s * 1000) / 10)));
      this.timer.unref();
    }
  }

  onEvent(e: BenchEvent): void {
    switch (e.type) {
      case 'request.sent':
        this.live.set(e.index, { id: e.requestId, lastMs: performance.now() });
        return;
      case 'request.first_token':
      case 'request.first_audio':
      case 'request.progress': {
        const r = this.live.get(e.index);
        if (r) r.lastMs = performance.now();
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
    if (!this.o.config.captureOnTimeout || this.firstTimeoutSeen || this.finished || this.unavailable) return;
    this.firstTimeoutSeen = true;
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
      setImmediate(() => void this.run(reason, ids.includes(r.requestId) ? ids : [r.requestId, ...ids]).then(resolve)),
    );
    this.pending.add(later);
    void later.then(() => this.pending.delete(later));
  }

  async finish(): Promise<Record<string, unknown>> {
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.pending.size) await Promise.all([...this.pending]);
    const c = this.o.config;
    return {
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
    if (s === undefined || this.finished || this.unavailable) return;
    if (this.noProgressBusy || this.noProgressCount >= MAX_NO_PROGRESS) return;
    const now = performance.now();
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
    const p = (this.o.capture ?? captureTree)(opts, { capture, reason, requestIds })
      .then((report) => {
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

/** Whether `cmd` (a path, or a name looked up on PATH) is an executable file. */
function onPath(cmd: string, path: string): boolean {
  const candidates = cmd.includes('/')
    ? [cmd]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, cmd));
  return candidates.some((f) => {
    try {
      accessSync(f, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
