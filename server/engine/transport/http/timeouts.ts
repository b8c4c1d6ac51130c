/**
 * The structural timers of one request attempt: `total` (connect, headers
 * and the whole body), optional `first_byte` (until the response headers)
 * and optional `idle` (no SSE event for N s, counted from the send and
 * restarted at each event). Each one aborts the attempt's controller with a
 * TimeoutError carrying its kind. The run's client (dispatcher.ts, h1/) has
 * no clock of its own, so these are the only clocks that classify.
Their limits come from shared/config/timeouts.ts (`effectiveTimeouts`).
 */
import { TimeoutError } from './reasons.ts';
import { withoutStacks } from './cancelSweep.ts';
import type { AttemptSignal } from './attemptSignal.ts';
import type { TimeoutKind } from '../../../../shared/types.ts';
import type { EffectiveTimeouts } from '../../../../shared/config/timeouts.ts';

// setTimeout's delay is a signed 32-bit ms value; larger values fire at once.
const MAX_DELAY_MS = 2_147_483_647;

export class AttemptTimers {
  private readonly timers: NodeJS.Timeout[] = [];
  private firstByte: NodeJS.Timeout | null = null;
  private idle: NodeJS.Timeout | null = null;
  private readonly startMs = performance.now();

  /** `onFire` runs synchronously when a timer fires, before the abort. */
  constructor(
    private readonly ctrl: AttemptSignal,
    limits: EffectiveTimeouts,
    private readonly onFire: (e: TimeoutError) => void,
  ) {
    this.arm('total', limits.totalS);
    if (limits.firstByteS !== null) this.firstByte = this.arm('first_byte', limits.firstByteS);
    if (limits.idleS !== null) this.idle = this.arm('idle', limits.idleS);
  }

  private arm(kind: TimeoutKind, limitS: number): NodeJS.Timeout {
    const ms = Math.min(Math.max(1, Math.round(limitS * 1000)), MAX_DELAY_MS);
    const timer = setTimeout(() => this.fire(kind, limitS), ms);
    this.timers.push(timer);
    return timer;
  }

  private fire(kind: TimeoutKind, limitS: number): void {
    if (this.ctrl.aborted) return;
    const err = new TimeoutError(kind, limitS, (performance.now() - this.startMs) / 1000);
    this.onFire(err);
    withoutStacks(() => this.ctrl.abort(err));
  }

  /** The response headers arrived: the first-byte limit is met. */
  headersReceived(): void {
    if (this.firstByte) clearTimeout(this.firstByte);
    this.firstByte = null;
  }

  /** An SSE event arrived: restart the idle clock (refresh is cheap). */
  eventReceived(): void {
    this.idle?.refresh();
  }

  clear(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.firstByte = null;
    this.idle = null;
  }
}
