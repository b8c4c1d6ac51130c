/**
 * One realtime session's WebSocket from the client side: the upgrade (a
 * refusal says its HTTP status), frames checked (text only, a bounded size,
 * each a JSON object with a `type`), each event handed to the current
 * listener with its receive time. A frame that breaks these rules, the peer
 * closing, or a socket error ends the connection with a stable code
 * (shared/errors.ts), which the turn in progress records
 * (docs/design.md#realtime).
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import type { ErrorCode } from '../../../../shared/errors.ts';
import { describeError } from '../http/classify.ts';
import type { RealtimeSockets } from './sockets.ts';

export type RealtimeEvent = Record<string, unknown> & { type: string };

export interface ConnectionFailure {
  code: ErrorCode;
  detail: string;
}

export interface ConnectionListener {
  /**
   * Any frame arrived, of `bytes` (the idle clock, the no_progress rule, the request's byte budget); false: the
   * frame is not read (the turn already ended over it).
   */
  onFrame(bytes: number): boolean;
  onEvent(event: RealtimeEvent, ts: number): void;
  onFailure(f: ConnectionFailure): void;
}

/** Default bound on one frame: a 200 ms PCM16 delta at 24 kHz is ~13 KB in base64. */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class RealtimeConnection {
  readonly ws: WebSocket;
  failure: ConnectionFailure | null = null;
  private listener: ConnectionListener | null = null;
  private readonly opened: Promise<void>;

  constructor(
    sockets: RealtimeSockets,
    url: string,
    headers: Record<string, string>,
    maxFrameBytes: number,
    private readonly now: () => number,
  ) {
    this.ws = sockets.connect(url, { headers, maxPayload: maxFrameBytes, perMessageDeflate: false });
    this.opened = new Promise((resolve) => this.ws.once('open', () => resolve()));
    this.ws.on('unexpected-response', (_req, res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      res.resume();
      this.fail('REQ_WS_UPGRADE', `HTTP ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`);
      this.ws.terminate();
    });
    this.ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    this.ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH')
        this.fail('REQ_WS_FRAME_TOO_LARGE', `a frame over ${maxFrameBytes} bytes`);
      else this.fail('REQ_TRANSPORT', describeError(err));
    });
    this.ws.on('close', (code, reason) =>
      this.fail('REQ_WS_CLOSED', `close code ${code}${reason.length ? ` (${reason.toString('utf8')})` : ''}`),
    );
  }

  /** Resolves once the upgrade is done; never rejects (a failure reaches the listener). */
  waitOpen(): Promise<void> {
    return this.opened;
  }

  listen(l: ConnectionListener | null): void {
    this.listener = l;
    if (l && this.failure) l.onFailure(this.failure);
  }

  send(event: Record<string, unknown>): void {
    if (this.failure === null && this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(event));
  }

  /** Ends the session politely (session.close, then a normal close); the sweep bounds it. */
  close(): void {
    if (this.failure === null) this.failure = { code: 'REQ_WS_CLOSED', detail: 'closed by the client' };
    if (this.ws.readyState === this.ws.OPEN) {
      this.ws.send(JSON.stringify({ type: 'session.close' }));
      this.ws.close(1000, 'session done');
    } else this.ws.terminate();
  }

  /** Resolves when the socket has closed, terminating it after `ms` if the peer never completes the close. */
  closed(ms: number): Promise<void> {
    if (this.ws.readyState === this.ws.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.ws.terminate(), ms);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  terminate(): void {
    if (this.failure === null) this.failure = { code: 'REQ_WS_CLOSED', detail: 'closed by the client' };
    this.ws.terminate();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    const ts = this.now();
    const read = this.listener?.onFrame(data.length) ?? true;
    if (this.failure || !read) return;
    if (isBinary) return this.failAndClose('REQ_WS_BINARY', `${data.length} bytes`);
    let event: unknown;
    try {
      event = JSON.parse(data.toString('utf8'));
    } catch {
      return this.failAndClose('REQ_WS_BAD_EVENT', 'not JSON');
    }
    if (!event || typeof event !== 'object' || typeof (event as { type?: unknown }).type !== 'string')
      return this.failAndClose('REQ_WS_BAD_EVENT', 'no string type');
    this.listener?.onEvent(event as RealtimeEvent, ts);
  }

  private failAndClose(code: ErrorCode, detail: string): void {
    this.fail(code, detail);
    this.ws.terminate();
  }

  private fail(code: ErrorCode, detail: string): void {
    if (this.failure) return;
    this.failure = { code, detail };
    this.listener?.onFailure(this.failure);
  }
}
