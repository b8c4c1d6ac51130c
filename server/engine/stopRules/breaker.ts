/**
 * The breaker (docs/design.md#fail-fast-breaker, docs/design.md#stop-rules):
 * the one latch every stop rule trips. Off unless a rule is given.
 *
 * Timeouts (`timeouts>=N`, `--omni-fail-fast-on-timeout` being `timeouts>=1`):
 * the Nth structural timeout *stops* the run synchronously (`stopSignal`
 * aborts, so the producer and every queued request give up at once). The
 * cause is chosen one turn later (setImmediate) among every timeout that
 * fired in the same timers phase, lowest request index first — so ties are
 * deterministic — and only then is `onTrip` called, which aborts the
 * requests still in flight. A request whose own timer fired in that phase
 * therefore stays `timed_out` rather than becoming a cancellation.
 *
 * The other rules (stopRules/) trip it with `trip`: the run stops at once
 * the same way, and `onTrip` follows one turn later.
 */
import { MAX_EVIDENCE, type StoppedBy } from '../../../shared/config/stopRules.ts';
import type { BreakerCause, TimeoutKind } from '../../../shared/types.ts';
import { CancelledError } from '../transport/index.ts';

export interface TimeoutReport {
  index: number;
  requestId: string;
  kind: TimeoutKind;
  elapsedS: number;
}

/** What stopped the run: the rule, and for a timeouts rule the timeout that tripped it. */
export interface RunTrip {
  stoppedBy: StoppedBy;
  cause: BreakerCause | null;
}

export interface BreakerOptions {
  /** The timeouts rule (`timeouts>=N`, the lowest N given), or null: timeouts never stop the run. */
  timeouts: { n: number; text: string } | null;
  onTrip: (trip: RunTrip) => void;
  /** Seconds on the run clock (the trip's `at_s`). */
  atS: () => number;
  lastPhaseOf?: (requestId: string) => string | null | undefined;
}

export class Breaker {
  private readonly stopCtrl = new AbortController();
  /** Timeouts reported so far, oldest first (kept only while a timeouts rule may trip; at most N). */
  private timedOut: TimeoutReport[] = [];
  private candidates: TimeoutReport[] = [];
  private decided: RunTrip | null = null;
  private decision: Promise<void> | null = null;
  private tripAtS = 0;

  constructor(private readonly o: BreakerOptions) {}

  /** Aborted (reason: a CancelledError 'breaker') as soon as a rule trips. */
  get stopSignal(): AbortSignal {
    return this.stopCtrl.signal;
  }

  /** True from the trip on (before the cause is chosen). */
  get tripped(): boolean {
    return this.stopCtrl.signal.aborted;
  }

  /** The timeout that tripped a timeouts rule (null for another rule, or no trip). */
  get cause(): BreakerCause | null {
    return this.decided?.cause ?? null;
  }

  get stoppedBy(): StoppedBy | null {
    return this.decided?.stoppedBy ?? null;
  }

  /** Called synchronously by a request's timer when it fires. */
  report(r: TimeoutReport): void {
    const rule = this.o.timeouts;
    if (!rule || this.decided) return;
    if (this.decision) {
      // Fired in the phase that tripped: a candidate for the cause, and evidence.
      if (this.candidates.length) this.candidates.push(r);
      return;
    }
    this.timedOut.push(r);
    if (this.timedOut.length < rule.n || this.tripped) return;
    this.candidates.push(r);
    this.stopNow(new CancelledError('breaker'), () => this.decideTimeout(rule.text));
  }

  /** Another rule tripped (its evidence already gathered): stops the run now, `onTrip` one turn later. */
  trip(stoppedBy: StoppedBy): void {
    if (this.tripped) return;
    this.stopNow(new CancelledError('breaker', `cancelled: the stop rule ${stoppedBy.rule} tripped`), () => {
      this.decided = { stoppedBy, cause: null };
      this.o.onTrip(this.decided);
    });
  }

  /** Resolves once the cause is chosen and `onTrip` has run (immediately if never tripped). */
  settled(): Promise<void> {
    return this.decision ?? Promise.resolve();
  }

  private stopNow(reason: CancelledError, decide: () => void): void {
    this.tripAtS = this.o.atS();
    this.stopCtrl.abort(reason);
    this.decision = new Promise<void>((resolve) => {
      setImmediate(() => {
        decide();
        resolve();
      });
    });
  }

  private decideTimeout(rule: string): void {
    const first = this.candidates.reduce((a, b) => (b.index < a.index ? b : a));
    const all = [...this.timedOut, ...this.candidates.slice(1)];
    this.candidates = [];
    this.timedOut = [];
    const cause: BreakerCause = {
      requestIndex: first.index,
      requestId: first.requestId,
      kind: first.kind,
      elapsedS: first.elapsedS,
      lastPhase: this.o.lastPhaseOf?.(first.requestId) ?? null,
    };
    const named = all.slice(0, MAX_EVIDENCE);
    this.decided = {
      cause,
      stoppedBy: {
        kind: 'timeouts',
        rule,
        atS: this.tripAtS,
        value: all.length,
        requests: named.map((t) => ({ index: t.index, requestId: t.requestId })),
        omitted: all.length - named.length,
      },
    };
    this.o.onTrip(this.decided);
  }
}
