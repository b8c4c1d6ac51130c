/**
 * Runs one request to its end state: attempts with vLLM-Omni's retry policy
 * (transport errors only, up to 3 more attempts 100 ms apart — none for a
 * backend whose upstream function has no retry loop, `target.maxAttempts` —
 * the record reset per attempt; never after a timeout, never once `cancel` fired).
 */
import type { RequestEndStatus, TimeoutKind } from '../../../shared/types.ts';
import { markFailed, newRecord, type RequestRecord } from '../records/record.ts';
import {
  CancelledError,
  sendAttempt,
  type Cancellation,
  type AttemptHooks,
  type AttemptTarget,
} from '../transport/index.ts';

export const MAX_ATTEMPTS = 4;
export const RETRY_DELAY_MS = 100;

export interface RequestJob {
  index: number;
  requestId: string;
  headers: Record<string, string>;
  /** The serialised body: bytes when written from a template (requestBody.ts), a string otherwise. */
  body: string | Uint8Array;
  promptLen: number;
}

export interface RequestEnd {
  record: RequestRecord;
  status: RequestEndStatus;
  timeoutKind?: TimeoutKind;
}

export interface RunnerHooks extends AttemptHooks {
  onAttempt?: (attempt: number, record: RequestRecord) => void;
  /**
   * The run's stop reason once it is stopping, else undefined. Read before
   * each retry: the breaker stops the run synchronously when the first
   * timeout fires, but cancels the requests one turn later, so a back-off
   * ending in that same timers phase must not send (docs/design.md#retries).
   */
  stopped?: () => unknown;
}

export async function runRequest(
  target: AttemptTarget,
  job: RequestJob,
  cancel: Cancellation,
  hooks: RunnerHooks,
): Promise<RequestEnd> {
  for (let attempt = 1; ; attempt++) {
    const record = newRecord(job.promptLen, target.now());
    record.attempts = attempt;
    hooks.onAttempt?.(attempt, record);
    // The backend's own attempt (a WebSocket session) or the HTTP one: retries, ends and statuses are shared.
    const r = await (target.attempt ?? sendAttempt)(target, job.headers, job.body, record, cancel, hooks);
    switch (r.type) {
      case 'ok':
        return { record, status: 'completed' };
      case 'failed':
      case 'other':
        return { record, status: 'failed' };
      case 'timeout':
        return { record, status: 'timed_out', timeoutKind: r.kind };
      case 'cancelled':
        return { record, status: r.cause === 'breaker' ? 'cancelled_after_timeout' : 'cancelled' };
      case 'transport': {
        if (attempt >= (target.maxAttempts ?? MAX_ATTEMPTS)) return { record, status: 'failed' };
        const before = cancel.aborted ? cancel.reason : hooks.stopped?.();
        if (before !== undefined) return cancelledEnd(record, before);
        if (!(await backOff(RETRY_DELAY_MS, cancel))) return cancelledEnd(record, cancel.reason);
        // The back-off ended in the timers phase that tripped the breaker: no new send.
        const after = hooks.stopped?.();
        if (after !== undefined) return cancelledEnd(record, after);
      }
    }
  }
}

/** A request stopped between attempts: it was dispatched, so it is cancelled, not unsent. */
function cancelledEnd(record: RequestRecord, reason: unknown): RequestEnd {
  const byBreaker = reason instanceof CancelledError && reason.cause === 'breaker';
  if (reason instanceof Error) markFailed(record, 'REQ_CANCELLED', reason.message, true);
  return { record, status: byBreaker ? 'cancelled_after_timeout' : 'cancelled' };
}

/** Waits `ms`; resolves false at once if cancelled meanwhile (no timer left behind). */
function backOff(ms: number, cancel: Cancellation): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      cancel.unbind();
      resolve(true);
    }, ms);
    cancel.bind(() => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
