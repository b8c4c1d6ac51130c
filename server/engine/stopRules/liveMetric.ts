/**
 * A live threshold (`p99_ttft_ms>2000,min=20`; docs/design.md#stop-rules):
 * a result key, computed during the run over the requests ended so far by
 * the same math as the result (shared/metrics), once `min` requests have
 * completed — as k6's `abortOnFail` with `delayAbortEval`. The first
 * evaluation is at the `min`-th completion; later ones are throttled to at
 * most one per max(250 ms, 20 × the last evaluation's cost), with a trailing
 * evaluation so the last completions are not left unread.
 */
import {
  calculateMetrics,
  type MetricInput,
  type MetricOptions,
  type RecordList,
} from '../../../shared/metrics/index.ts';
import type { StopRule } from '../../../shared/config/stopRules.ts';
import { compare } from '../../../shared/runInfo/verdict.ts';
import type { RuleTrip } from './endRules.ts';

type MetricRule = Extract<StopRule, { kind: 'metric' }>;
export const MIN_EVAL_INTERVAL_MS = 250;

export class LiveMetric {
  private completed = 0;
  private lastEvalMs = -Infinity;
  private intervalMs = MIN_EVAL_INTERVAL_MS;
  private trailing: NodeJS.Timeout | null = null;
  private lastIndex = -1;
  private done = false;

  constructor(
    private readonly rule: MetricRule,
    /** Every ended request's record so far (shared with the other live metrics of the run). */
    private readonly ended: RecordList<MetricInput>,
    private readonly options: Omit<MetricOptions, 'durationS'>,
    /** Seconds on the run clock (the duration the throughputs divide by). */
    private readonly atS: () => number,
    private readonly requestId: (index: number) => string,
    private readonly trip: (t: RuleTrip) => void,
  ) {}

  /** A request ended (its record is already in `ended`). */
  onEnd(index: number, completed: boolean): void {
    if (this.done) return;
    if (completed) {
      this.completed++;
      this.lastIndex = index;
    }
    if (this.completed < this.rule.min) return;
    const first = this.lastEvalMs === -Infinity;
    const wait = this.lastEvalMs + this.intervalMs - performance.now();
    if (first || wait <= 0) this.evaluate();
    else this.trailing ??= setTimeout(this.onTrailing, wait);
  }

  stop(): void {
    this.done = true;
    if (this.trailing) clearTimeout(this.trailing);
    this.trailing = null;
  }

  private readonly onTrailing = (): void => {
    this.trailing = null;
    this.evaluate();
  };

  private evaluate(): void {
    if (this.done) return;
    const t0 = performance.now();
    const metrics = calculateMetrics(this.ended, { ...this.options, durationS: this.atS() });
    this.lastEvalMs = performance.now();
    this.intervalMs = Math.max(MIN_EVAL_INTERVAL_MS, 20 * (this.lastEvalMs - t0));
    const value = metrics[this.rule.key];
    // A key without samples yet (no request produced text, say) is not a value: nothing trips on it.
    if (typeof value !== 'number' || Number.isNaN(value) || !compare(value, this.rule.op, this.rule.value)) return;
    this.stop();
    this.trip({
      kind: 'metric',
      rule: this.rule.text,
      value,
      over: this.completed,
      requests: this.lastIndex >= 0 ? [{ index: this.lastIndex, requestId: this.requestId(this.lastIndex) }] : [],
      omitted: 0,
    });
  }
}
