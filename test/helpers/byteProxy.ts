/**
 * A TCP proxy on 127.0.0.1:0 in front of a server, noting when the last byte
 * went from the server to a client: the moment a stalled server went silent,
 * seen on the wire, for timing how long a client takes to stop after it.
 */
import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ByteProxy {
  url: string;
  /** performance.now() of the last server→client byte (NaN before any). */
  readonly lastDownMs: number;
  close(): Promise<void>;
}

export async function startByteProxy(target: string): Promise<ByteProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let lastDownMs = Number.NaN;
  const server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    upstream.on('data', (d: Buffer) => {
      lastDownMs = performance.now();
      client.write(d);
    });
    client.on('data', (d: Buffer) => upstream.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get lastDownMs() {
      return lastDownMs;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
