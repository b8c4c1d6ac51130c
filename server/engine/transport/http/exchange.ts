/**
 * One HTTP exchange as the run's client hands it over (h1/socketExchange.ts):
 * response bytes go straight into the stream parser, with no Readable stream
 * and async iterator in between (per request, those cost about as much as
 * parsing a few SSE events). Aborts come through the attempt's signal; the
 * promise `done` resolves with the HTTP status once the exchange is over; if
 * it failed, `error` holds the client's error (the caller classifies it by the
 * signal's reason first). `done` never rejects: a rejection would be
 * rethrown in the awaiting async function, and with 1,000 requests
 * cancelled at once by the breaker those throws are a measurable part of
 * the sweep.
 */
import type { BodyReader } from '../reading/responseReading.ts';
import type { AttemptSignal } from './attemptSignal.ts';
import type { ExchangeHandler } from '../h1/socketExchange.ts';

/** Bytes of a non-200 body read before the connection is dropped (vLLM keeps only the reason phrase). */
const ERROR_BODY_LIMIT = 64 * 1024;
/** Bytes of a non-200 body kept to show its first line beside the status (the rest is drained unread). */
export const ERROR_HEAD_BYTES = 512;

/** A request's byte budget (docs/design.md#peer-bounds): past `bytes` of body, `exceeded` is told and reading stops. */
export interface ExchangeBudget {
  bytes: number;
  exceeded(received: number): void;
}

/** Our own reason for ending an exchange early (parser failed, error body too long): not an error. */
const STOP = Object.assign(new Error('exchange stopped by the client'), { stack: 'exchange stopped by the client' });

export class SseExchange implements ExchangeHandler {
  status = 0;
  /** The response's content-type (lower case), or null without one. */
  contentType: string | null = null;
  /** A content-encoding other than identity (lower case): never asked for (no Accept-Encoding is sent). */
  contentEncoding: string | null = null;
  /** The Location of a redirect (not followed). */
  location: string | null = null;
  /** The client's error when the exchange failed; null otherwise. */
  error: Error | null = null;
  readonly done: Promise<number>;
  private abortFn: ((err: Error) => void) | null = null;
  private parser: BodyReader | null = null;
  private drained = 0;
  /** The first ERROR_HEAD_BYTES of a body not fed to a parser (an error page, a JSON error), for its first line. */
  readonly errorHead: Uint8Array[] = [];
  private errorHeadBytes = 0;
  /** Body bytes received, read or drained: what the budget counts. */
  private received = 0;
  private stopped = false;
  private settled = false;
  private resolveFn!: (status: number) => void;

  constructor(
    private readonly signal: AttemptSignal,
    /** Called once with the status when the response headers arrive; returns the parser for a 200. */
    private readonly onStatus: (status: number) => BodyReader | null,
    /** Any response byte arrived, headers or body (the no_progress stop rule's clock). */
    private readonly onBytes?: () => void,
    /**
     * The exchange is over, called at once (`done` resolves a turn later): what must not outlive it, such as the
     * attempt's timers, stops here, not when `done` is heard.
     */
    private readonly onOver?: () => void,
    /** Absent: no bound but the events' and the timers'. */
    private readonly budget?: ExchangeBudget,
  ) {
    this.done = new Promise<number>((resolve) => {
      this.resolveFn = resolve;
    });
    signal.onAbort(() => this.abortFn?.(signal.reason as Error));
  }

  // --- the client's handler interface (h1/socketExchange.ts) ---

  onConnect(abort: (err: Error) => void): void {
    if (this.signal.aborted) abort(this.signal.reason as Error);
    else this.abortFn = abort;
  }

  onHeaders(statusCode: number, rawHeaders: string[]): boolean {
    this.onBytes?.();
    if (statusCode < 200) return true; // 1xx informational
    this.status = statusCode;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i].toLowerCase();
      if (name === 'content-type') this.contentType = rawHeaders[i + 1].toLowerCase();
      else if (name === 'content-encoding') {
        const enc = rawHeaders[i + 1].trim().toLowerCase();
        if (enc !== '' && enc !== 'identity') this.contentEncoding = enc;
      } else if (name === 'location') this.location = rawHeaders[i + 1];
    }
    // An encoded body is not fed to the parser (its bytes are not UTF-8 text): drained like an error body.
    this.parser = this.contentEncoding === null ? this.onStatus(statusCode) : null;
    return true;
  }

  onData(chunk: Uint8Array, readT: number): boolean {
    this.onBytes?.();
    if (this.stopped) return true;
    // Counted before the bytes are handed on, whatever they hold: a stream of events each under the event bound,
    // or of bytes no event keeps, must not grow what the request holds past what the run declared.
    this.received += chunk.length;
    if (this.budget && this.received > this.budget.bytes) {
      this.budget.exceeded(this.received);
      this.stop();
      return true;
    }
    if (this.parser) {
      this.parser.push(chunk, readT);
      if (this.parser.failed) this.stop();
    } else {
      if (this.errorHeadBytes < ERROR_HEAD_BYTES) {
        const part = chunk.subarray(0, ERROR_HEAD_BYTES - this.errorHeadBytes);
        this.errorHead.push(Uint8Array.from(part));
        this.errorHeadBytes += part.length;
      }
      if ((this.drained += chunk.length) > ERROR_BODY_LIMIT) this.stop();
    }
    return true;
  }

  onComplete(endT: number | null): void {
    if (this.parser && !this.parser.failed && !this.stopped) this.parser.end(endT ?? undefined);
    this.settle(null);
  }

  onError(err: Error): void {
    this.settle(this.stopped ? null : err);
  }

  // --- ours ---

  /**
   * Ends the exchange from our side when the client never will (a socket the
   * sweep did not reach): aborts the request if it can and settles `done`
   * with `reason`. A no-op once settled.
   */
  forceEnd(reason: Error): void {
    if (this.settled) return;
    this.settle(reason);
    this.stopped = true;
    try {
      this.abortFn?.(reason);
    } catch {
      // The request may already be gone from the client's side; `done` is settled, which is what matters.
    }
  }

  private stop(): void {
    this.stopped = true;
    this.abortFn?.(STOP);
  }

  private settle(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    if (err) this.error = err;
    this.onOver?.();
    // Resolved in the next turn of the loop, after its poll: the request's end and the next request's start wait for
    // the reads that arrived meanwhile to be stamped (h1/readTurn.ts), instead of delaying their times by theirs.
    setImmediate(this.resolveFn, this.status);
  }
}
