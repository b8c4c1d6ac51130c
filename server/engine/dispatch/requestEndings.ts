/**
 * Where each request of a run ends up: its record, end status, stop cause
 * and timeout kind in dataset order, and the `request.*` end event. A
 * never-sent request gets no record of its own: one shared placeholder per
 * prompt length (read-only for every reader of the result), so a million of
 * them cost their array slots only.
 */
import type { RequestEndStatus, StopCause, TimeoutKind } from '../../../shared/types.ts';
import { compactRecord, placeholderRecord, type RequestRecord } from '../client/record.ts';
import type { RunEvents } from '../events.ts';
import type { AttemptTarget } from '../http/attempt.ts';
import { CancelledError } from '../http/reasons.ts';
import { outcomeOf, stopCauseOf } from './outcome.ts';

export class RequestEndings {
  readonly records: RequestRecord[];
  readonly statuses: RequestEndStatus[];
  /** Per request: what stopped the run before it ended on its own. */
  readonly stoppedBy: (StopCause | null)[];
  readonly timeoutKinds: (TimeoutKind | null)[];
  /** Per request: the run-clock time of its first send (null: never sent); set by its hooks. */
  readonly sentT: (number | null)[];
  private readonly placeholders = new Map<number, RequestRecord>();

  constructor(
    n: number,
    private readonly events: RunEvents,
    private readonly target: AttemptTarget,
    private readonly requestId: (index: number) => string,
    private readonly promptLen: (index: number) => number,
    /** The run's stop: its reason says what stopped a request that ends now. */
    private readonly stopSignal: AbortSignal,
  ) {
    this.records = new Array<RequestRecord>(n);
    this.statuses = new Array<RequestEndStatus>(n);
    this.stoppedBy = new Array<StopCause | null>(n).fill(null);
    this.timeoutKinds = new Array<TimeoutKind | null>(n).fill(null);
    this.sentT = new Array<number | null>(n).fill(null);
  }

  /** Told of every request that ended after being started (the stop rules), after its end event. */
  onEnd: ((index: number, status: RequestEndStatus, record: RequestRecord) => void) | null = null;

  finish(index: number, record: RequestRecord, status: RequestEndStatus, kind?: TimeoutKind): void {
    // When the request let go of its slot, whatever its outcome: the exact concurrency sweep counts
    // timed-out and cancelled requests too (shared/metrics/timeline.ts). Never-sent records have none.
    if (record.attempts > 0 && record.endTime === undefined) record.endTime = this.target.now();
    if (status !== 'not_dispatched') compactRecord(record);
    this.records[index] = record;
    this.statuses[index] = status;
    if (kind) this.timeoutKinds[index] = kind;
    const by = stopCauseOf(status, this.stopSignal.reason);
    this.stoppedBy[index] = by;
    this.events.end(outcomeOf(index, this.requestId(index), record, status, this.sentT[index], by), kind);
    if (status !== 'not_dispatched') this.onEnd?.(index, status, record);
  }

  /** Request `index` was never sent: the run stopped before it started. */
  notDispatched(index: number): void {
    const len = this.promptLen(index);
    let record = this.placeholders.get(len);
    if (!record) {
      const reason: unknown = this.stopSignal.reason;
      const why = reason instanceof CancelledError ? reason.message : 'the run stopped';
      record = placeholderRecord(len, 'REQ_CANCELLED', `not dispatched: ${why}`, true);
      this.placeholders.set(len, record);
    }
    this.finish(index, record, 'not_dispatched');
  }
}
