/**
 * Where each request of a run ends up: its record, end status, stop cause
 * and timeout kind in the run's request table (dataset order), and the
 * `request.*` end event. An unsent request has no record of its own: the
 * unsent requests of a stopped run are ended together, in one bulk
 * event and a few writes per column chunk, whatever their number
 * (docs/design.md#bulk-unsent).
 */
import type { RequestEndStatus, TimeoutKind } from '../../../shared/types.ts';
import { placeholderRecord, type RequestRecord } from '../records/record.ts';
import type { RunEvents } from '../records/events.ts';
import { CancelledError, type AttemptTarget } from '../transport/index.ts';
import { RequestTable } from '../records/requestTable.ts';
import { outcomeOf, stopCauseOf } from './outcome.ts';

export class RequestEndings {
  /** Every request's record and end, column-wise. */
  readonly table: RequestTable;

  constructor(
    private readonly n: number,
    private readonly events: RunEvents,
    private readonly target: AttemptTarget,
    private readonly requestId: (index: number) => string,
    private readonly promptLen: (index: number) => number,
    /** The run's stop: its reason says what stopped a request that ends now. */
    private readonly stopSignal: AbortSignal,
  ) {
    this.table = new RequestTable(n, promptLen);
  }

  /** Told of every request that ended after being started (the stop rules), after its end event. */
  onEnd: ((index: number, status: RequestEndStatus, record: RequestRecord) => void) | null = null;

  finish(index: number, record: RequestRecord, status: RequestEndStatus, kind?: TimeoutKind): void {
    // When the request let go of its slot, whatever its outcome: the exact concurrency sweep counts
    // timed-out and cancelled requests too (shared/metrics/timeline.ts). Unsent records have none.
    if (record.attempts > 0 && record.endTime === undefined) record.endTime = this.target.now();
    const by = stopCauseOf(status, this.stopSignal.reason);
    this.table.write(index, record, status, by, kind ?? null);
    // The Seed-TTS gate's spooled audio is found by request from now on (the record object is let go).
    this.target.audioSpool?.keep(index, record);
    this.events.end(outcomeOf(index, this.requestId(index), record, status, this.table.sentT(index), by), kind);
    if (status !== 'not_dispatched') this.onEnd?.(index, status, record);
  }

  /** Request `index` was unsent: the run stopped after it got a slot, before it was sent. */
  unsent(index: number): void {
    this.finish(
      index,
      placeholderRecord(this.promptLen(index), 'REQ_CANCELLED', this.unsentError(), true),
      'not_dispatched',
    );
  }

  /** Requests [from, n) are unsent: the run stopped first. One write per column chunk, one event. */
  unsentFrom(from: number): void {
    if (from >= this.n) return;
    const error = this.unsentError();
    const by = stopCauseOf('not_dispatched', this.stopSignal.reason);
    this.table.endUnsent(from, this.n, error, by);
    this.events.unsent(from, this.n, error, by);
  }

  /** The error an unsent request reports: what stopped the run. */
  private unsentError(): string {
    const reason: unknown = this.stopSignal.reason;
    return `not dispatched: ${reason instanceof CancelledError ? reason.message : 'the run stopped'}`;
  }
}
