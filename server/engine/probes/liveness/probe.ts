/**
 * The liveness probe (docs/design.md#liveness-at-stall): at the first stall
 * evidence — a structural timeout, a `no_progress` stop-rule trip, or (with
 * `stallAfterS`, `--server-stall-after-s`) a request in flight with no SSE
 * event for that long — it asks the server what still works (ask.ts), once
 * per run, started one turn after the evidence so the breaker's stop and
 * sweep go first. It never delays the stop: the engine does not wait on it
 * during the dispatch, and `finish` waits at most for the questions' own
 * bound. The report becomes a `server.liveness` event and the result key
 * `liveness_at_stall` (null when the run never stalled).
 */
import type { BenchEvent } from '../../../../shared/protocol/protocol.ts';
import { livenessText, type LivenessReport } from '../../../../shared/stalls/liveness.ts';
import type { TimeoutReport } from '../../stopRules/breaker.ts';
import type { ProbeContext, RunProbe } from '../../run/probe.ts';
import { askLiveness, type LivenessTarget } from './ask.ts';
import { livenessJson } from './resultKey.ts';

/** Each question's bound: long enough for a few tokens of a loaded thinker, short beside any stall worth the name. */
export const LIVENESS_BOUND_MS = 2000;

export interface LivenessProbeOptions {
  target: LivenessTarget;
  runId: string;
  /** `--server-stall-after-s`: a request this long without an SSE event is a stall too. */
  stallAfterS?: number;
  /** Tests: a shorter bound. */
  boundMs?: number;
}

type Trigger = LivenessReport['trigger'];

export class LivenessProbe implements RunProbe {
  private ctx: ProbeContext | null = null;
  private t0 = 0;
  /** In-flight requests: index → performance.now() of its last event (its send, a token, audio, progress). */
  private readonly live = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private asked: Promise<void> | null = null;
  private report: LivenessReport | null = null;
  private finished = false;

  constructor(private readonly o: LivenessProbeOptions) {}

  start(ctx: ProbeContext): void {
    this.ctx = ctx;
    this.t0 = performance.now();
    const s = this.o.stallAfterS;
    if (s !== undefined) {
      this.timer = setInterval(() => this.checkSilence(s), Math.max(50, Math.min(1000, (s * 1000) / 10)));
      this.timer.unref();
    }
  }

  onEvent(e: BenchEvent): void {
    switch (e.type) {
      case 'request.sent':
      case 'request.first_token':
      case 'request.first_audio':
      case 'request.progress':
        this.live.set(e.index, performance.now());
        return;
      case 'request.completed':
      case 'request.failed':
      case 'request.timed_out':
      case 'request.cancelled':
      case 'request.unsent':
        this.live.delete(e.outcome.index);
        return;
      case 'run.stopped':
        if (e.stoppedBy.kind === 'no_progress')
          this.trigger(
            { kind: 'no_progress', atS: e.stoppedBy.atS, detail: `the stop rule ${e.stoppedBy.rule} tripped` },
            e.stoppedBy.requests.length + e.stoppedBy.omitted,
            e.stoppedBy.value,
          );
        return;
      default:
        return;
    }
  }

  onTimeout(r: TimeoutReport): void {
    const detail = `request #${r.index} hit its ${r.kind} timeout after ${r.elapsedS.toFixed(1)} s`;
    this.trigger({ kind: 'timeout', atS: this.nowS(), detail }, this.live.size, this.longestSilenceS());
  }

  async finish(): Promise<Record<string, unknown>> {
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.asked;
    return { liveness_at_stall: this.report ? livenessJson(this.report) : null };
  }

  private nowS(): number {
    return (performance.now() - this.t0) / 1000;
  }

  private longestSilenceS(): number {
    const now = performance.now();
    let quiet = 0;
    for (const last of this.live.values()) quiet = Math.max(quiet, now - last);
    return quiet / 1000;
  }

  private checkSilence(s: number): void {
    const silentS = this.longestSilenceS();
    if (silentS < s) return;
    this.trigger(
      { kind: 'silence', atS: this.nowS(), detail: `a request had no SSE event for ${s} s` },
      this.live.size,
      silentS,
    );
  }

  /** Once per run: asks one turn later, so the stop and the sweep queued before us go first. */
  private trigger(trigger: Trigger, inFlight: number, silentS: number): void {
    if (this.asked || this.finished) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const boundMs = this.o.boundMs ?? LIVENESS_BOUND_MS;
    this.asked = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => askLiveness(this.o.target, boundMs, this.o.runId))
      .then((probes) => {
        this.report = { trigger, boundMs, probes, stalled: { inFlight, silentS } };
        const sentence = livenessText(this.report);
        this.ctx?.log(`Liveness at the stall: ${sentence}`);
        this.ctx?.emit({ type: 'server.liveness', report: this.report });
      })
      .catch((e: unknown) => this.ctx?.log(`liveness check failed: ${(e as Error).message}`));
  }
}
