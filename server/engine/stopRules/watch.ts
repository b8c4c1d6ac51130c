/**
 * The stop rules other than timeouts, watching one run's dispatch
 * (docs/design.md#stop-rules): the end rules (endRules.ts) and live
 * thresholds (liveMetric.ts) at each request's end, `no_progress`
 * (noProgress.ts) on its own clock. A rule that trips stamps its time and
 * trips the breaker, which stops the run as a fail-fast trip does; after
 * that, or once the run stopped for any other reason, nothing is counted.
 * The timeouts rule is the breaker's own (breaker.ts).
 */
import type { MetricInput, MetricOptions, RecordList } from '../../../shared/metrics/index.ts';
import type { StopRule, StoppedBy } from '../../../shared/config/stopRules.ts';
import type { RequestEndStatus } from '../../../shared/types.ts';
import { endRuleCounter, isEndRule, type RuleTrip } from './endRules.ts';
import { LiveMetric } from './liveMetric.ts';
import { NoProgressClock } from './noProgress.ts';

export interface StopRuleWatchInput {
  rules: readonly StopRule[];
  /** The run's records so far, by dataset index (the request table): the live thresholds read the ended ones. */
  records: { at(index: number): MetricInput | undefined };
  /** The requests in flight, by index (the dispatch's own map). */
  inFlight: { readonly size: number; keys(): Iterable<number> };
  requestId: (index: number) => string;
  /** Seconds on the run clock. */
  atS: () => number;
  /** What the live thresholds compute (the run's percentile metrics, percentiles and goodput). */
  metrics: Omit<MetricOptions, 'durationS'>;
  /** Aborted once the run stops (a trip, an interrupt): nothing is counted after it. */
  stopped: AbortSignal;
  trip: (s: StoppedBy) => void;
}

export class StopRuleWatch {
  private readonly counters: { ended(index: number, failed: boolean): RuleTrip | null }[];
  private readonly live: LiveMetric[];
  private readonly clock: NoProgressClock | null;
  /** Ended requests, for the live thresholds only: their indices, read from the run's records. */
  private readonly ended: EndedList;

  constructor(private readonly o: StopRuleWatchInput) {
    const tripNow = (t: RuleTrip): void => this.tripNow(t);
    this.ended = new EndedList(o.records);
    this.counters = o.rules.filter(isEndRule).map((r) => endRuleCounter(r, o.requestId));
    this.live = o.rules
      .filter((r): r is Extract<StopRule, { kind: 'metric' }> => r.kind === 'metric')
      .map((r) => new LiveMetric(r, this.ended, o.metrics, o.atS, o.requestId, tripNow));
    // Several no_progress rules: the shortest silence trips first.
    const quiet = o.rules
      .filter((r): r is Extract<StopRule, { kind: 'no_progress' }> => r.kind === 'no_progress')
      .sort((a, b) => a.seconds - b.seconds)[0];
    this.clock = quiet ? new NoProgressClock(quiet, o.inFlight, o.requestId, tripNow) : null;
    o.stopped.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** Whether any rule needs to hear of response bytes. */
  get watchesBytes(): boolean {
    return this.clock !== null;
  }

  /** An attempt was sent, or a response byte arrived. */
  progress(): void {
    this.clock?.progress();
  }

  /** A request ended (not an unsent one). Synchronous: a trip stops the run before the slot is released. */
  onEnd(index: number, status: RequestEndStatus): void {
    if (this.o.stopped.aborted) return;
    this.clock?.progress();
    // The stop's own cancellations are not the target's failures.
    if (status === 'cancelled' || status === 'cancelled_after_timeout' || status === 'not_dispatched') return;
    const failed = status === 'failed' || status === 'timed_out';
    for (const c of this.counters) {
      const t = c.ended(index, failed);
      if (t) return this.tripNow(t);
    }
    if (this.live.length === 0) return;
    this.ended.push(index);
    for (const m of this.live) {
      m.onEnd(index, status === 'completed');
      if (this.o.stopped.aborted) return;
    }
  }

  /** The run is over (or stopped): no timer is left behind. */
  stop(): void {
    this.clock?.stop();
    for (const m of this.live) m.stop();
  }

  private tripNow(t: RuleTrip): void {
    if (this.o.stopped.aborted) return;
    this.stop();
    this.o.trip({ ...t, atS: this.o.atS() });
  }
}

/** Indices of ended requests (4 bytes each), read as their records. */
class EndedList implements RecordList<MetricInput> {
  private idx = new Uint32Array(1024);
  length = 0;

  constructor(private readonly records: { at(index: number): MetricInput | undefined }) {}

  push(index: number): void {
    if (this.length === this.idx.length) {
      const grown = new Uint32Array(this.idx.length * 2);
      grown.set(this.idx);
      this.idx = grown;
    }
    this.idx[this.length++] = index;
  }

  at(k: number): MetricInput | undefined {
    return k >= 0 && k < this.length ? this.records.at(this.idx[k]) : undefined;
  }

  *[Symbol.iterator](): Iterator<MetricInput> {
    for (let k = 0; k < this.length; k++) yield this.records.at(this.idx[k])!;
  }
}
