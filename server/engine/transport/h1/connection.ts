/**
 * One socket of a run and its listeners, added once for the socket's whole
 * life: while a request is on it, its bytes, end and errors go to that
 * request's exchange; while it is idle, anything from the server (bytes, an
 * end) closes it, since an idle HTTP/1.1 connection has nothing to say. It
 * always has an `error` listener, so no socket error is ever unhandled.
 * Its bytes are stamped when read and handled at the end of the turn
 * (readTurn.ts); its end, errors and close come after its reads.
 *
 * A plain TCP connection that closed can connect again (reopen()): the same
 * socket object, its listeners kept, as Node allows once `close` was emitted.
 * With a connection per request, a new net.Socket a request was most of what
 * the run's client spent above the kernel's connect and close (docs/performance.md#socket-reuse).
 */
import dc from 'node:diagnostics_channel';
import { Socket, connect as tcpConnect, isIP } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions as TlsOptions } from 'node:tls';
import type { SocketExchange } from './socketExchange.ts';
import type { ReadTurn } from './readTurn.ts';

/** Where and how to connect: the run's origin and, for https, its TLS settings. */
export interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
  /** Extra TLS settings (`rejectUnauthorized: false` for --insecure). */
  tlsOptions?: TlsOptions;
}

/**
 * Every connection a run's client opens, published once connected (TCP, and TLS for https) on this
 * diagnostics channel, as undici publishes `undici:client:connected`: what a test or a tracer watches.
 */
export const CONNECTED_CHANNEL = 'stallscope:client:connected';
const connectedChannel = dc.channel(CONNECTED_CHANNEL);

/** The message on CONNECTED_CHANNEL. */
export interface ConnectedMessage {
  protocol: 'http:' | 'https:';
  host: string;
  port: number;
}

export class Connection {
  /** The request on this connection, or null while it is idle. */
  exchange: SocketExchange | null = null;
  /** When it last became idle (performance.now()), and how long it may stay so before it is not reused. */
  idleSince = 0;
  maxIdleMs = 0;
  connected = false;
  /** Its socket emitted `close` (and has not connected again since). */
  closed = false;
  /** Reads of its socket not handled yet (readTurn.ts): bytes it is not idle of, though nothing sees them yet. */
  unread = 0;
  readonly socket: Socket;

  constructor(
    private readonly endpoint: Endpoint,
    /** The run's reads, handled at the end of each turn. */
    private readonly reads: ReadTurn,
    /** The socket connected (TCP, and TLS for https). */
    private readonly onConnected: (c: Connection) => void,
    /** The socket closed, for whatever reason. */
    private readonly onClosed: (c: Connection) => void,
    /**
     * Plain TCP only: made closed, its socket never connected (no handle, nothing to release), for reopen() to
     * connect: a connection per request's first wave made before the clock (RunConnections.prepareSockets).
     */
    unconnected = false,
  ) {
    const { host, port } = endpoint;
    this.socket = unconnected
      ? new Socket()
      : endpoint.tls
        ? tlsConnect({
            host,
            port,
            // SNI takes a name, never an address.
            servername: isIP(host) ? undefined : host,
            ALPNProtocols: ['http/1.1'],
            ...endpoint.tlsOptions,
          })
        : tcpConnect({ host, port });
    const s = this.socket;
    // The request is written at once; without this, Nagle's algorithm could hold a keep-alive request's
    // segment until the previous response's delayed ACK (up to 40 ms into its TTFT).
    s.setNoDelay(true);
    if (unconnected) this.closed = true;
    else this.arm();
    s.on('data', (chunk: Buffer) => this.reads.push(this, chunk));
    // Its own reads not handled yet go first (the turn's others with them: they are in one queue, in order).
    s.on('end', () => {
      if (this.unread > 0) this.reads.flush();
      if (this.exchange) this.exchange.ended();
      else s.destroy();
    });
    s.on('error', (err: Error) => {
      if (this.unread > 0) this.reads.flush();
      this.exchange?.errored(err);
    });
  }

  /** One read of its socket, handled (readTurn.ts): `readT` = when it was read, on the run's clock. */
  handle(chunk: Buffer, readT: number): void {
    if (this.exchange) this.exchange.read(chunk, readT);
    else this.socket.destroy();
  }

  /** The listeners of one connect: its `connect` and its `close`. */
  private arm(): void {
    const s = this.socket;
    s.once(this.endpoint.tls ? 'secureConnect' : 'connect', this.connectedNow);
    s.once('close', this.closedNow);
  }

  private readonly connectedNow = (): void => {
    this.connected = true;
    if (connectedChannel.hasSubscribers)
      connectedChannel.publish({
        protocol: this.endpoint.tls ? 'https:' : 'http:',
        host: this.endpoint.host,
        port: this.endpoint.port,
      } satisfies ConnectedMessage);
    this.onConnected(this);
  };

  private readonly closedNow = (): void => {
    this.closed = true;
    // A connect that never happened (refused, reset in the handshake) leaves its listener: not one more each reopen.
    this.socket.removeListener(this.endpoint.tls ? 'secureConnect' : 'connect', this.connectedNow);
    this.exchange?.closed();
    this.onClosed(this);
  };

  /** Whether reopen() may connect it again: plain TCP (a TLS socket is not reconnected), closed, nothing on it. */
  get reopenable(): boolean {
    return !this.endpoint.tls && this.closed && this.exchange === null;
  }

  /**
   * Connects the closed socket again, to the same endpoint: a new TCP
   * connection on the same socket object and listeners, its state as a new
   * connection's. Only once `close` was emitted (reopenable).
   */
  reopen(): void {
    if (!this.reopenable) throw new Error('only a closed plain TCP connection with no request on it reopens');
    this.closed = false;
    this.connected = false;
    this.idleSince = 0;
    this.maxIdleMs = 0;
    this.arm();
    this.socket.connect({ host: this.endpoint.host, port: this.endpoint.port });
    this.socket.setNoDelay(true);
  }

  /** Idle, open, nothing read from it since, and not past its idle limit: fit to carry a request. */
  fresh(now: number): boolean {
    const s = this.socket;
    return (
      now - this.idleSince <= this.maxIdleMs &&
      this.unread === 0 &&
      !s.destroyed &&
      !s.readableEnded &&
      s.readableLength === 0
    );
  }
}
