/**
 * The "requests" process of the Perfetto export: the in-flight counter and
 * the timeout and cancellation instants from the request events (folded by
 * the one request fold, shared/requests/requestLifecycle.ts, as the dashboard hub
 * folds them), the breaker's trip, and one track per stored request row: a
 * span from queued to its end state with nested "queued", "waiting for first
 * token" and "streaming".
 */
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { BreakerTripped, RequestsUnsent, RunStopped } from '../../../shared/protocol/protocol.ts';
import { bulkUnsent, emptyCounts } from '../../../shared/requests/outcomes.ts';
import { LiveRequests } from '../../../shared/requests/liveRequests.ts';
import { stopCancelLabel, stoppedByRule } from '../../../shared/requests/stopLabel.ts';
import type { RequestEvent, RequestTally } from '../../../shared/requests/requestLifecycle.ts';
import { meta, REQ_PID, slice, us, type TraceWriter } from './traceFormat.ts';

/** The request events of one trace: a counter sample whenever a request takes or lets go of a slot. */
export class RequestTrack {
  private readonly tally: RequestTally = { counts: emptyCounts(), inFlight: 0 };
  private readonly live = new LiveRequests(this.tally);

  constructor(private readonly w: TraceWriter) {}

  onEvent(e: RequestEvent): void {
    const step = this.live.apply(e);
    if (step && step.inFlight !== 0)
      this.w.push({ name: 'in flight', ph: 'C', ts: us(e.t), pid: REQ_PID, args: { requests: this.tally.inFlight } });
    if (e.type === 'request.timed_out')
      this.w.push({
        name: `timeout (${e.kind})`,
        ph: 'i',
        s: 't',
        ts: us(e.t),
        pid: REQ_PID,
        tid: e.outcome.index + 1,
        cat: 'timeout',
        args: { kind: e.kind, error: e.outcome.error },
      });
    // A stop's cancellation is named by what stopped the run; one the user asked for (status `cancelled`) is not a stop.
    if (e.type === 'request.cancelled')
      this.w.push({
        name: e.outcome.status === 'cancelled_after_timeout' ? stopCancelLabel(this.w.stop) : 'cancelled',
        ph: 'i',
        s: 't',
        ts: us(e.t),
        pid: REQ_PID,
        tid: e.outcome.index + 1,
        cat: e.outcome.status === 'cancelled_after_timeout' ? 'breaker' : 'request',
        args: { status: e.outcome.status },
      });
  }

  /** The unsent requests of a stopped run, ended together: one global instant saying how many. */
  onUnsent(e: RequestsUnsent): void {
    const { n, ended } = bulkUnsent(e);
    const before = this.tally.inFlight;
    this.live.endRange(e.from, e.to, ended, n);
    if (this.tally.inFlight !== before)
      this.w.push({ name: 'in flight', ph: 'C', ts: us(e.t), pid: REQ_PID, args: { requests: this.tally.inFlight } });
    this.w.push({
      name: `${n} unsent`,
      ph: 'i',
      s: 'g',
      ts: us(e.t),
      pid: REQ_PID,
      cat: 'breaker',
      args: { from: e.from, to: e.to, error: e.error, stoppedBy: e.stoppedBy ?? null },
    });
  }
}

/** The breaker's trip: a global instant with its cause. */
export function emitBreakerTripped(w: TraceWriter, e: BreakerTripped): void {
  w.push({
    name: 'breaker tripped',
    ph: 'i',
    s: 'g',
    ts: us(e.t),
    pid: REQ_PID,
    cat: 'breaker',
    args: { cause: e.cause, inFlight: e.inFlight, queued: e.queued },
  });
}

/** A stop rule other than timeouts stopped the run (a timeouts rule's trip is the breaker's instant above). */
export function emitRunStopped(w: TraceWriter, e: RunStopped): void {
  if (e.stoppedBy.kind === 'timeouts') return;
  w.push({
    name: `stopped by ${e.stoppedBy.rule}`,
    ph: 'i',
    s: 'g',
    ts: us(e.t),
    pid: REQ_PID,
    cat: 'breaker',
    args: { stoppedBy: e.stoppedBy, inFlight: e.inFlight, queued: e.queued },
  });
}

/** One track per stored row: its name, and (once queued or sent) its span and the nested phases. */
export function emitRequestRow(w: TraceWriter, r: RequestRow): void {
  const tid = r.index + 1;
  w.push(meta(REQ_PID, tid, 'thread_name', `req ${r.index} (${r.requestId})`));
  const start = r.queuedT ?? r.sentT;
  if (start === null) return;
  const end = r.endT ?? w.lastT;
  // The status key stays in args; a request a stop rule cancelled is named by the rule, not by a timeout it never had.
  const named = r.status === 'cancelled_after_timeout' && stoppedByRule(w.stop) ? stopCancelLabel(w.stop) : r.status;
  w.push({
    name: `request ${r.index}: ${named}`,
    ph: 'X',
    ...slice(start, end),
    pid: REQ_PID,
    tid,
    cat: 'request',
    args: {
      status: r.status,
      ttftS: r.ttftS,
      e2elS: r.e2elS,
      audioTtfpS: r.audioTtfpS,
      attempts: r.attempts,
      error: r.error,
    },
  });
  const span = (name: string, a: number | null, b: number | null) => {
    if (a !== null && b !== null && b >= a)
      w.push({ name, ph: 'X', ...slice(a, b), pid: REQ_PID, tid, cat: 'request' });
  };
  span('queued', r.queuedT, r.sentT);
  // A speech request has no token: its stream starts with its first audio (docs/design.md#backends).
  const first = r.firstTokenT ?? r.firstAudioT;
  span(
    r.firstTokenT === null && r.firstAudioT !== null ? 'waiting for first audio' : 'waiting for first token',
    r.sentT,
    first ?? (r.status === 'completed' ? null : end),
  );
  span('streaming', first, end);
}
