/**
 * The fail-fast circuit breaker (docs/design.md#fail-fast-breaker). Off by default.
 *
 * The first structural timeout *stops* the run synchronously (`stopSignal`
 * aborts, so the producer and every queued request give up at once). The
 * cause is chosen one turn later (setImmediate) among every timeout that
 * fired in the same timers phase, lowest request index first — so ties are
 * deterministic — and only then is `onTrip` called, which aborts the
 * requests still in flight. A request whose own timer fired in that phase
 * therefore stays `timed_out` rather than becoming a cancellation.
 */
import type { BreakerCause, TimeoutKind } from '../../shared/types.ts';
import { CancelledError } from './http/reasons.ts';

export interface TimeoutReport {
  index: number;
  requestId: string;
  kind: TimeoutKind;
  elapsedS: number;
}

export class Breaker {
  private readonly stopCtrl = new AbortController();
  private candidates: TimeoutReport[] = [];
  private decided: BreakerCause | null = null;
  private decision: Promise<void> | null = null;

  constructor(
    readonly enabled: boolean,
    private readonly onTrip: (cause: BreakerCause) => void,
    private readonly lastPhaseOf?: (requestId: string) => string | null | undefined,
  ) {}

  /** Aborted (reason: CancelledError 'breaker') as soon as a timeout is reported. */
  get stopSignal(): AbortSignal {
    return this.stopCtrl.signal;
  }

  /** True from the first reported timeout on (before the cause is chosen). */
  get tripped(): boolean {
    return this.stopCtrl.signal.aborted;
  }

  get cause(): BreakerCause | null {
    return this.decided;
  }

  /** Called synchronously by a request's timer when it fires. */
  report(r: TimeoutReport): void {
    if (!this.enabled || this.decided) return;
    this.candidates.push(r);
    if (this.decision) return;
    this.stopCtrl.abort(new CancelledError('breaker'));
    this.decision = new Promise<void>((resolve) => {
      setImmediate(() => {
        this.decide();
        resolve();
      });
    });
  }

  /** Resolves once the cause is chosen and `onTrip` has run (immediately if never tripped). */
  settled(): Promise<void> {
    return this.decision ?? Promise.resolve();
  }

  private decide(): void {
    const first = this.candidates.reduce((a, b) => (b.index < a.index ? b : a));
    this.candidates = [];
    const lastPhase = this.lastPhaseOf?.(first.requestId) ?? null;
    this.decided = {
      requestIndex: first.index,
      requestId: first.requestId,
      kind: first.kind,
      elapsedS: first.elapsedS,
      lastPhase,
    };
    this.onTrip(this.decided);
  }
}
