/**
 * A TCP proxy between a dashboard and PostgreSQL that reads the frontend
 * protocol (a startup message, then `type byte + int32 length` messages) and,
 * once armed, cuts a connection right after forwarding a simple-query `COMMIT`
 * ('Q'): PostgreSQL receives the COMMIT whole and commits, the client never
 * hears the answer — the ambiguous commit a network fault makes.
 */
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

export interface PgCutProxy {
  /** postgres://… through the proxy, to database `db`. */
  url(db: string): string;
  /**
   * Cut the next `n` COMMITs (each on its own connection) — of transactions that sent a statement matching `only`
   * when given (the writer's: `/INSERT INTO events/`), not a route's.
   */
  arm(n?: number, only?: RegExp): void;
  /** COMMITs cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

/** Splits a frontend byte stream into messages; calls `onMessage(type, body)` ('' for the startup message). */
function frontendReader(onMessage: (type: string, body: Buffer) => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const head = started ? 5 : 4;
      if (buf.length < head) return;
      const len = started ? buf.readInt32BE(1) + 1 : buf.readInt32BE(0);
      if (buf.length < len) return;
      onMessage(started ? String.fromCharCode(buf[0]) : '', buf.subarray(head, len));
      buf = buf.subarray(len);
      started = true;
    }
  };
}

export async function startPgCutProxy(pgPort: number): Promise<PgCutProxy> {
  const sockets = new Set<Socket>();
  let armed = 0;
  let only: RegExp | undefined;
  let cuts = 0;
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: pgPort });
    let cut = false;
    /** The statements (simple 'Q' and extended 'P') sent since the last BEGIN. */
    let tx = '';
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    const read = frontendReader((type, body) => {
      if (cut) return;
      const raw = Buffer.concat([Buffer.from(type, 'latin1'), Buffer.alloc(type ? 4 : 0), body]);
      if (type) raw.writeInt32BE(body.length + 4, 1);
      else {
        // The startup message is length + body, no type byte.
        const len = Buffer.alloc(4);
        len.writeInt32BE(body.length + 4);
        upstream.write(Buffer.concat([len, body]));
        return;
      }
      upstream.write(raw);
      const text = type === 'Q' || type === 'P' ? body.toString('utf8') : '';
      if (/^\s*BEGIN\b/i.test(text)) tx = '';
      else tx += text;
      const commit = type === 'Q' && /^\s*COMMIT\b/i.test(text);
      if (commit && armed > 0 && (!only || only.test(tx))) {
        armed--;
        cuts++;
        cut = true;
        // end() sends the COMMIT before the FIN; the client's side goes at once, before any answer.
        upstream.end();
        client.destroy();
      }
    });
    client.on('data', read);
    upstream.on('data', (d: Buffer) => {
      if (!cut) client.write(d);
    });
    client.on('close', () => upstream.end());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (db) => `postgres://postgres@127.0.0.1:${port}/${db}`,
    arm(n = 1, statement?: RegExp) {
      armed += n;
      only = statement;
    },
    get cuts() {
      return cuts;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
