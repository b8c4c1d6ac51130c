/**
 * `no_progress>=S` (docs/design.md#stop-rules): requests are in flight and
 * none of them has received a byte for S seconds — a stalled stage seen from
 * the client in S seconds rather than one request timeout. Any send, any
 * response byte (headers or body) and any request's end is progress. One
 * timer at a time, armed for the moment the silence would reach S and
 * re-armed from the last progress when it fires early, so a byte costs one
 * clock read, not a timer.
 */
import type { RuleTrip } from './endRules.ts';
import { namedIndices } from './evidence.ts';

export class NoProgressClock {
  private lastMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private done = false;

  constructor(
    private readonly rule: { text: string; seconds: number },
    /** The requests in flight, by index (the dispatch's own map). */
    private readonly inFlight: { readonly size: number; keys(): Iterable<number> },
    private readonly requestId: (index: number) => string,
    private readonly trip: (t: RuleTrip) => void,
  ) {}

  /** A request was sent (an attempt) or received a byte, or ended. */
  progress(): void {
    this.lastMs = performance.now();
    if (this.timer === null && !this.done && this.inFlight.size > 0) this.arm(this.rule.seconds * 1000);
  }

  stop(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(this.check, Math.max(1, Math.ceil(ms)));
  }

  private readonly check = (): void => {
    this.timer = null;
    if (this.done || this.inFlight.size === 0) return; // re-armed by the next send
    const quietMs = performance.now() - this.lastMs;
    const limitMs = this.rule.seconds * 1000;
    if (quietMs < limitMs) return this.arm(limitMs - quietMs);
    this.done = true;
    this.trip({
      kind: 'no_progress',
      rule: this.rule.text,
      value: quietMs / 1000,
      ...namedIndices(this.inFlight.keys(), this.requestId),
    });
  };
}
