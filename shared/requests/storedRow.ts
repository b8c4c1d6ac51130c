/**
 * The row the store keeps for an ended request: its lifecycle and its outcome's measurements, keys in the order
 * stored rows have always had (REST replies splice the stored JSON as it is). One rule for the hub's rows and the
 * rows a range of unsent requests reads as (shared/requests/endedRange.ts).
 */
import type { RequestRow } from '../protocol/apiSchemas.ts';
import type { RequestOutcome } from '../protocol/protocol.ts';
import type { RequestLifecycle } from './requestLifecycle.ts';

/** The outcome's measurements that a stored row keeps beside the request's lifecycle. */
export type RowMetrics = Pick<RequestOutcome, 'ttftS' | 'e2elS' | 'audioTtfpS' | 'promptLen' | 'error'>;

export function storedRow(r: RequestLifecycle, m: RowMetrics): RequestRow {
  return {
    index: r.index,
    requestId: r.requestId,
    status: r.status,
    queuedT: r.queuedT,
    sentT: r.sentT,
    firstTokenT: r.firstTokenT,
    firstAudioT: r.firstAudioT,
    endT: r.endT,
    ttftS: m.ttftS,
    e2elS: m.e2elS,
    audioTtfpS: m.audioTtfpS,
    audioDurationS: r.audioDurationS,
    outputTokens: r.outputTokens,
    promptLen: m.promptLen,
    attempts: r.attempts,
    error: m.error,
    timeoutKind: r.timeoutKind,
  };
}
