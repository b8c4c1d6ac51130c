/** What a request's `request.*` end event says about it (RequestOutcome), and what stopped it. */
import type { RequestOutcome } from '../../../shared/protocol/protocol.ts';
import type { RequestEndStatus, StopCause } from '../../../shared/types.ts';
import type { RequestRecord } from '../records/record.ts';
import { CancelledError } from '../transport/index.ts';

export function outcomeOf(
  index: number,
  requestId: string,
  r: RequestRecord,
  status: RequestEndStatus,
  sentT: number | null,
  stoppedBy: StopCause | null = null,
): RequestOutcome {
  const o: RequestOutcome = {
    index,
    requestId,
    status,
    ttftS: r.ttft,
    e2elS: r.latency,
    audioTtfpS: r.audioTtfp,
    audioDurationS: r.audioDuration,
    outputTokens: r.outputTokens,
    promptLen: r.promptLen,
    attempts: r.attempts,
    error: r.error,
    sentT,
  };
  // Set, not spread in: a stopped run builds a million of these.
  if (stoppedBy) o.stoppedBy = stoppedBy;
  if (r.httpStatus !== undefined) o.http = { status: r.httpStatus, bodyLine: r.bodyLine ?? null };
  return o;
}

/**
 * What stopped a request that ended cancelled or unsent: the breaker or
 * an interrupt, read from the status or from the run's stop reason.
 */
export function stopCauseOf(status: RequestEndStatus, stopReason: unknown): StopCause | null {
  if (status === 'cancelled_after_timeout') return 'breaker';
  if (status === 'cancelled') return 'interrupt';
  if (status !== 'not_dispatched' || !(stopReason instanceof CancelledError)) return null;
  return stopReason.cause === 'breaker' ? 'breaker' : 'interrupt';
}
