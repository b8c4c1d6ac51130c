/**
 * One HTTP attempt of one request: POST, check the status, feed the body to
 * the stream parser, all under the attempt's structural timers. Returns how
 * the attempt ended; never throws for anything the target does.
 */
import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import { markFailed, type RequestRecord } from '../client/record.ts';
import { StreamParser, type MessageInfo } from '../client/streamParser.ts';
import type { AudioSink } from '../client/audioChunks.ts';
import { AttemptTimers, type EffectiveTimeouts } from './timeouts.ts';
import { classifyFailure, describeError, type FailureClass } from './classify.ts';
import type { TimeoutError } from './reasons.ts';
import type { Cancellation } from './cancellation.ts';
import { AttemptSignal } from './attemptSignal.ts';
import { SseExchange } from './exchange.ts';

export interface AttemptTarget {
  dispatcher: Dispatcher;
  origin: string;
  path: string;
  limits: EffectiveTimeouts;
  /** Monotonic seconds. */
  now: () => number;
  maxEventBytes?: number;
  /** Seed-TTS gate: spools each attempt's PCM (see accuracy/audioSpool.ts); absent otherwise. */
  audioSpool?: { sinkFor(record: RequestRecord): AudioSink };
}

export interface AttemptHooks {
  /** Runs synchronously when one of this attempt's timers fires. */
  onTimeout?: (e: TimeoutError) => void;
  onHeaders?: () => void;
  onMessage?: (info: MessageInfo) => void;
  onWarning?: (message: string) => void;
}

export type AttemptResult =
  | { type: 'ok' }
  /** The target answered but the request failed (HTTP status, stream error): not retried. */
  | { type: 'failed' }
  | FailureClass;

export async function sendAttempt(
  target: AttemptTarget,
  headers: Record<string, string>,
  body: string,
  record: RequestRecord,
  cancel: Cancellation,
  hooks: AttemptHooks,
): Promise<AttemptResult> {
  if (cancel.aborted) return classifyFailure(cancel.reason, cancel.reason);
  const ctrl = new AttemptSignal();
  cancel.bind((reason, bulk) => (bulk ? ctrl.markCancelled(reason) : ctrl.abort(reason)));
  const timers = new AttemptTimers(ctrl, target.limits, (e) => hooks.onTimeout?.(e));
  try {
    const exchange = new SseExchange(ctrl, (status) => {
      timers.headersReceived();
      hooks.onHeaders?.();
      if (status !== 200) return null;
      return new StreamParser(record, {
        now: target.now,
        maxEventBytes: target.maxEventBytes,
        hooks: {
          onMessage: (info) => {
            timers.eventReceived();
            hooks.onMessage?.(info);
          },
          onWarning: (message) => hooks.onWarning?.(message),
        },
        audioSink: target.audioSpool?.sinkFor(record),
      });
    });
    target.dispatcher.dispatch(
      { origin: target.origin, path: target.path, method: 'POST', headers, body, headersTimeout: 0, bodyTimeout: 0 },
      exchange,
    );
    const status = await exchange.done;
    if (exchange.error !== null) return failure(exchange.error, ctrl, record);
    if (status !== 200) {
      // vLLM stores only the reason phrase (golden case 8: "Internal Server
      // Error"); an unknown status has none, so its number stands in. The body
      // was drained (bounded) or dropped.
      markFailed(record, 'REQ_HTTP_STATUS', STATUS_CODES[status] ?? `HTTP ${status}`, true);
      return { type: 'failed' };
    }
    return record.success ? { type: 'ok' } : { type: 'failed' };
  } catch (err) {
    return failure(err, ctrl, record);
  } finally {
    timers.clear();
    cancel.unbind();
  }
}

/** Classifies a failed attempt (by the signal's reason first) and records it. */
function failure(err: unknown, ctrl: AttemptSignal, record: RequestRecord): AttemptResult {
  const cls = classifyFailure(err, ctrl.aborted ? ctrl.reason : undefined);
  switch (cls.type) {
    case 'timeout':
      markFailed(record, 'REQ_TIMEOUT', (ctrl.reason as Error).message);
      break;
    case 'cancelled':
      markFailed(record, 'REQ_CANCELLED', (ctrl.reason as Error).message, true);
      break;
    default:
      markFailed(record, 'REQ_TRANSPORT', describeError(err));
  }
  return cls;
}
