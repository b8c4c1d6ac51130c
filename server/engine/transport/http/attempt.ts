/**
 * One HTTP attempt of one request: POST, check the status, feed the body to
 * the stream parser, all under the attempt's structural timers. Returns how
 * the attempt ended; never throws for anything the target does.
 */
import { STATUS_CODES } from 'node:http';
import { markFailed, type RequestRecord } from '../../records/record.ts';
import type { MessageInfo } from '../reading/streamParser.ts';
import type { AudioSink } from '../reading/audioChunks.ts';
import type { ResponseReading } from '../reading/responseReading.ts';
import type { ChunkShapes } from '../reading/chunkTemplate.ts';
import { SSE_READING } from '../reading/sseReading.ts';
import { AttemptTimers } from './timeouts.ts';
import type { EffectiveTimeouts } from '../../../../shared/config/timeouts.ts';
import { classifyFailure, describeError, type FailureClass } from './classify.ts';
import type { TimeoutError } from './reasons.ts';
import type { Cancellation } from './cancellation.ts';
import { AttemptSignal } from './attemptSignal.ts';
import { SseExchange } from './exchange.ts';
import { CLEANUP_DEADLINE_MS, type Dispatcher } from './dispatcher.ts';
import { REQUEST_BUDGET_CEILING_BYTES } from '../../../../shared/config/memoryBudget.ts';

/** A bulk-cancelled attempt ends by this time even if its exchange never hears from the run's client. */
export const CANCELLED_ATTEMPT_BOUND_MS = CLEANUP_DEADLINE_MS + 50;

export interface AttemptTarget {
  dispatcher: Dispatcher;
  origin: string;
  /** One TCP connection per request (vLLM-Omni's `force_close`): closed after the response. */
  perRequest?: boolean;
  path: string;
  limits: EffectiveTimeouts;
  /** Monotonic seconds. */
  now: () => number;
  maxEventBytes?: number;
  /**
   * Bytes one request may accumulate from the server (docs/design.md#peer-bounds; backends/requestBudget.ts): past
   * it the request fails with REQ_BUDGET. Absent: REQUEST_BUDGET_CEILING_BYTES.
   */
  budgetBytes?: number;
  /** Seed-TTS gate: spools each attempt's PCM (see accuracy/audioSpool.ts); absent otherwise. */
  audioSpool?: { sinkFor(record: RequestRecord): AudioSink; keep(index: number, record: RequestRecord): void };
  /**
   * How a 200's body is read into the record: the run's backend (server/engine/backends/). Absent: the
   * chat backends' SSE stream parser.
   */
  reading?: ResponseReading;
  /** The chunk shapes the run's SSE streams learnt and share (client/chunkTemplate.ts); each stream's own when absent. */
  chunkShapes?: ChunkShapes;
  /**
   * One attempt of one request, for a backend that does not speak HTTP request/response (the realtime
   * WebSocket backends). Absent: `sendAttempt`, this file's HTTP attempt.
   */
  attempt?: AttemptFn;
  /** Attempts one request may make on transport errors (the backend's; backends/backend.ts). Absent: MAX_ATTEMPTS. */
  maxAttempts?: number;
}

/** One attempt: fills `record`, reports through `hooks`, never throws for anything the target does. */
export type AttemptFn = (
  target: AttemptTarget,
  headers: Record<string, string>,
  body: string | Uint8Array,
  record: RequestRecord,
  cancel: Cancellation,
  hooks: AttemptHooks,
) => Promise<AttemptResult>;

export interface AttemptHooks {
  /** Runs synchronously when one of this attempt's timers fires. */
  onTimeout?: (e: TimeoutError) => void;
  onHeaders?: () => void;
  /** Any response byte arrived (headers or body); absent when nothing listens (it runs per chunk). */
  onBytes?: () => void;
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
  body: string | Uint8Array,
  record: RequestRecord,
  cancel: Cancellation,
  hooks: AttemptHooks,
): Promise<AttemptResult> {
  if (cancel.aborted) return classifyFailure(cancel.reason, cancel.reason);
  const ctrl = new AttemptSignal();
  let exchange: SseExchange | null = null;
  // Bulk cancels leave the abort to the run's connection sweep; this timer bounds the attempt
  // anyway, so a request the sweep did not reach cannot hold the run (docs/design.md#bounded-stop).
  let bound: NodeJS.Timeout | null = null;
  cancel.bind((reason, bulk) => {
    if (!bulk) return ctrl.abort(reason);
    ctrl.markCancelled(reason);
    bound = setTimeout(() => exchange?.forceEnd(reason as Error), CANCELLED_ATTEMPT_BOUND_MS);
  });
  const timers = new AttemptTimers(ctrl, target.limits, (e) => hooks.onTimeout?.(e));
  const parserHooks = new ParserHooks(timers, hooks);
  const reading = target.reading ?? SSE_READING;
  const budget = target.budgetBytes ?? REQUEST_BUDGET_CEILING_BYTES;
  try {
    exchange = new SseExchange(
      ctrl,
      (status) => {
        timers.headersReceived();
        hooks.onHeaders?.();
        if (status !== 200) return null;
        return reading.open(record, {
          now: target.now,
          maxEventBytes: target.maxEventBytes,
          hooks: parserHooks,
          audioSink: target.audioSpool?.sinkFor(record),
          shapes: target.chunkShapes,
        });
      },
      hooks.onBytes,
      // A response over is not timed out by a timer due before `done` is heard, a turn later.
      () => timers.clear(),
      {
        bytes: budget,
        // Also over an in-stream error kept so far: reading stops here, for this reason.
        exceeded: (received) => markFailed(record, 'REQ_BUDGET', overBudget(received, budget)),
      },
    );
    target.dispatcher.dispatch({ path: target.path, headers, body, reset: target.perRequest === true }, exchange);
    const status = await exchange.done;
    if (exchange.error !== null) return failure(exchange.error, ctrl, record);
    if (status !== 200) {
      // vLLM stores only the reason phrase (golden case 8: "Internal Server
      // Error"); an unknown status has none, so its number stands in. The body
      // was drained (bounded) or dropped. A redirect is not followed (a POST
      // must not turn into a GET elsewhere): its status and target are said.
      const phrase = STATUS_CODES[status];
      const reason =
        status >= 300 && status < 400
          ? `HTTP ${status}${phrase ? ` ${phrase}` : ''}: a redirect${exchange.location ? ` to ${exchange.location}` : ''}, not followed`
          : (phrase ?? `HTTP ${status}`);
      markFailed(record, 'REQ_HTTP_STATUS', reason, true);
      // The error stays vLLM's reason phrase (its result's `errors`); the status and the body's first line are
      // kept beside it, for a person (docs/design.md#server-identity).
      record.httpStatus = status;
      record.bodyLine = firstBodyLine(exchange.errorHead);
      return { type: 'failed' };
    }
    if (exchange.contentEncoding !== null) {
      markFailed(
        record,
        reading.wrongBody,
        `response is ${exchange.contentEncoding}-encoded, which was not asked for (no Accept-Encoding is sent)`,
        true,
      );
      return { type: 'failed' };
    }
    const notAnAnswer = record.success ? reading.notAnAnswer(exchange.contentType, parserHooks.messages) : null;
    if (notAnAnswer !== null) {
      // A 200 that is not what the backend reads (an HTML error page, a proxy's answer) is no completion.
      markFailed(record, reading.wrongBody, notAnAnswer, true);
      return { type: 'failed' };
    }
    return record.success ? { type: 'ok' } : { type: 'failed' };
  } catch (err) {
    return failure(err, ctrl, record);
  } finally {
    timers.clear();
    if (bound) clearTimeout(bound);
    cancel.unbind();
  }
}

/** The first non-blank line of an error body's first bytes, at most BODY_LINE_CHARS; null for an empty body. */
export function firstBodyLine(head: readonly Uint8Array[]): string | null {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(head));
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '');
  if (line === undefined) return null;
  // Control characters (a NUL no database stores, an escape sequence a terminal would run) become spaces.
  // eslint-disable-next-line no-control-regex -- exactly those are what is replaced
  const t = line.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return t.length > BODY_LINE_CHARS ? `${t.slice(0, BODY_LINE_CHARS - 1)}…` : t;
}

/** How much of an error body's first line is kept: a JSON error or an HTML title, not a page. */
export const BODY_LINE_CHARS = 200;

/** REQ_BUDGET's detail, the same words for every backend. */
export function overBudget(received: number, budget: number): string {
  return `received ${received} bytes, budget ${budget}`;
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

/**
 * The parser's hooks for one attempt, as a class: as closures, the
 * 1,000-in-flight breaker trip was slower (docs/performance.md#parser-hooks).
 */
class ParserHooks {
  /** SSE events seen in this attempt. */
  messages = 0;

  constructor(
    private readonly timers: AttemptTimers,
    private readonly hooks: AttemptHooks,
  ) {}

  onMessage(info: MessageInfo): void {
    this.messages++;
    this.timers.eventReceived();
    this.hooks.onMessage?.(info);
  }

  onWarning(message: string): void {
    this.hooks.onWarning?.(message);
  }
}
