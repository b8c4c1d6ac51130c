/**
 * One request and its response on one socket: the request written in one
 * corked write, the response's head read up to its blank line, its body
 * handed to the handler as it arrives, framed by its length, its chunks or
 * the server's close. The handler's calls are those of an undici dispatch
 * handler (onConnect, onHeaders, onData, onComplete, onError), in that order,
 * with exactly one of onComplete or onError. A normal end creates no error
 * object: errors are built only when something failed.
 */
import type { Socket } from 'node:net';
import { ChunkedBody } from './chunkedBody.ts';
import { BadResponseError, MAX_HEAD_BYTES, parseResponseHead, type BodyFraming } from './responseHead.ts';

export interface ExchangeHandler {
  /** Called first, with the function that ends the exchange early (the socket is destroyed, onError follows). */
  onConnect(abort: (err: Error) => void): void;
  /** Each head: informational (1xx) ones, then the final one. */
  onHeaders(status: number, raw: string[]): boolean;
  /** Body bytes; `readT` = when the read that brought them was taken from the socket (the run's clock). */
  onData(chunk: Uint8Array, readT: number): boolean;
  /** `endT`: when the read that completed the response was read; null when the server's close ended it (now). */
  onComplete(endT: number | null): void;
  onError(err: Error): void;
}

/** The connection ended before the response did: a transport failure, retried as aiohttp's disconnects are. */
export class ClosedEarlyError extends Error {
  readonly code = 'HTTP_CLOSED_EARLY';
  constructor(where: string) {
    super(`the target closed the connection ${where}`);
    this.name = 'ClosedEarlyError';
  }
}

/**
 * Hands the connection back once the exchange is over: `reusable` = it may carry another request;
 * `keepAliveS` = how long the server said it keeps an idle connection (`Keep-Alive: timeout=`), or null.
 */
export type Release = (reusable: boolean, keepAliveS: number | null) => void;

const enum Phase {
  Head,
  Body,
  Over,
}

/**
 * The socket's events reach the exchange through its connection (connection.ts), which listens for the
 * socket's whole life: no listener is added or removed per request.
 */
export class SocketExchange {
  private phase = Phase.Head;
  /** Head bytes read so far (a head split across reads). */
  private pending: Buffer | null = null;
  private framing: BodyFraming = { kind: 'none' };
  private reusable = false;
  private keepAliveS: number | null = null;
  private left = 0;
  private chunked: ChunkedBody | null = null;
  /** The time of the read being handled. */
  private readT = 0;
  private readonly deliver = (piece: Uint8Array): void => void this.handler.onData(piece, this.readT);

  constructor(
    private readonly socket: Socket,
    private readonly handler: ExchangeHandler,
    private readonly release: Release,
    /** The request asked for the connection to be closed after the response. */
    private readonly closes: boolean,
  ) {}

  /** Writes the request and starts reading; `abort` is handed to the handler first. */
  start(head: string, body: string | Uint8Array): void {
    this.handler.onConnect((err) => this.fail(err, true));
    if (this.phase === Phase.Over) return; // aborted before anything was sent
    const s = this.socket;
    s.cork();
    s.write(head, 'latin1');
    s.write(body);
    s.uncork();
  }

  /** One read of the socket; `readT` = when it was read (h1/readTurn.ts). */
  read(chunk: Buffer, readT: number): void {
    this.readT = readT;
    if (this.phase === Phase.Head) this.readHead(chunk);
    else if (this.phase === Phase.Body) this.readBody(chunk);
  }

  /** The server's FIN: the end of a body framed by the close, or a response cut short. */
  ended(): void {
    // A body framed by the close was never reusable (responseHead.ts).
    if (this.phase === Phase.Body && this.framing.kind === 'close') this.complete(true, null);
    else this.fail(new ClosedEarlyError(this.where()), false);
  }

  /** The socket closed (after an error, a reset, or our own destroy). */
  closed(): void {
    this.fail(new ClosedEarlyError(this.where()), false);
  }

  errored(err: Error): void {
    this.fail(err, false);
  }

  /** Ends the exchange with `err`; `destroy` when the socket may still be open (ours to close). */
  fail(err: Error, destroy: boolean): void {
    if (this.phase === Phase.Over) return;
    this.phase = Phase.Over;
    if (destroy) this.socket.destroy();
    this.release(false, null);
    this.handler.onError(err);
  }

  private readHead(chunk: Buffer): void {
    let bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    // Informational heads (100 Continue, 103) come before the final one, possibly in the same read.
    while (this.phase === Phase.Head) {
      const end = bytes.indexOf('\r\n\r\n', 0, 'latin1');
      if (end < 0) {
        if (bytes.length > MAX_HEAD_BYTES) return this.fail(new BadResponseError('response head too long'), true);
        this.pending = bytes;
        return;
      }
      if (end > MAX_HEAD_BYTES) return this.fail(new BadResponseError('response head too long'), true);
      let head;
      try {
        head = parseResponseHead(bytes.toString('latin1', 0, end));
      } catch (err) {
        return this.fail(err as Error, true);
      }
      bytes = bytes.subarray(end + 4);
      if (head.status === 101) return this.fail(new BadResponseError('101 Switching Protocols, never asked for'), true);
      this.handler.onHeaders(head.status, head.raw);
      if (this.phase !== Phase.Head) return; // the handler aborted
      if (head.status < 200) continue;
      this.phase = Phase.Body;
      this.framing = head.framing;
      this.reusable = head.reusable && !this.closes;
      this.keepAliveS = head.keepAliveS;
      if (head.framing.kind === 'length') this.left = head.framing.bytes;
      else if (head.framing.kind === 'chunked') this.chunked = new ChunkedBody();
      else if (head.framing.kind === 'none') return this.complete(bytes.length === 0, this.readT);
    }
    if (bytes.length > 0) this.readBody(bytes);
  }

  private readBody(bytes: Buffer): void {
    switch (this.framing.kind) {
      case 'length': {
        const take = Math.min(this.left, bytes.length);
        const whole = take === bytes.length;
        this.left -= take;
        this.handler.onData(whole ? bytes : bytes.subarray(0, take), this.readT);
        if (this.phase !== Phase.Body) return;
        if (this.left === 0) this.complete(whole, this.readT);
        return;
      }
      case 'chunked': {
        const chunked = this.chunked!;
        let used: number;
        try {
          used = chunked.push(bytes, this.deliver);
        } catch (err) {
          return this.fail(err as Error, true);
        }
        if (this.phase !== Phase.Body) return;
        if (chunked.done) this.complete(used === bytes.length, this.readT);
        return;
      }
      default:
        this.handler.onData(bytes, this.readT);
    }
  }

  private where(): string {
    return this.phase === Phase.Head ? 'before the response head' : 'in the middle of the response body';
  }

  /** The response ended; `clean` = no byte after it (anything more and the connection is not reused). */
  private complete(clean: boolean, endT: number | null): void {
    this.phase = Phase.Over;
    this.handler.onComplete(endT);
    this.release(this.reusable && clean, this.keepAliveS);
  }
}
