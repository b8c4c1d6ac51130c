/**
 * One socket of a run and its listeners, added once for the socket's whole
 * life: while a request is on it, its bytes, end and errors go to that
 * request's exchange; while it is idle, anything from the server (bytes, an
 * end) closes it, since an idle HTTP/1.1 connection has nothing to say. It
 * always has an `error` listener, so no socket error is ever unhandled.
 */
import dc from 'node:diagnostics_channel';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions as TlsOptions } from 'node:tls';
import type { SocketExchange } from './socketExchange.ts';

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
  readonly socket: Socket;

  constructor(
    endpoint: Endpoint,
    /** The socket connected (TCP, and TLS for https). */
    onConnected: (c: Connection) => void,
    /** The socket closed, for whatever reason. */
    onClosed: (c: Connection) => void,
  ) {
    const { host, port } = endpoint;
    this.socket = endpoint.tls
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
    s.once(endpoint.tls ? 'secureConnect' : 'connect', () => {
      this.connected = true;
      if (connectedChannel.hasSubscribers)
        connectedChannel.publish({
          protocol: endpoint.tls ? 'https:' : 'http:',
          host,
          port,
        } satisfies ConnectedMessage);
      onConnected(this);
    });
    s.on('data', (chunk: Buffer) => {
      if (this.exchange) this.exchange.read(chunk);
      else s.destroy();
    });
    s.on('end', () => {
      if (this.exchange) this.exchange.ended();
      else s.destroy();
    });
    s.on('error', (err: Error) => this.exchange?.errored(err));
    s.once('close', () => {
      this.exchange?.closed();
      onClosed(this);
    });
  }

  /** Idle, open, and not past its idle limit: fit to carry a request. */
  fresh(now: number): boolean {
    const s = this.socket;
    return now - this.idleSince <= this.maxIdleMs && !s.destroyed && !s.readableEnded && s.readableLength === 0;
  }
}
