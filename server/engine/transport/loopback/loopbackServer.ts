/**
 * The client warm-up's own server: answers every request on loopback with
 * one recorded stream, chunked (as uvicorn streams vLLM-Omni's SSE), in
 * pieces that cut events in the middle and join others, as TCP reads do.
 * Written on plain `net`/`tls` sockets, not Node's HTTP server: the warm-up
 * runs in the client's own process, and the HTTP server's JavaScript (its
 * parser glue, ServerResponse, OutgoingMessage) was compiled and run there
 * for nothing the run uses — most of the warm-up's CPU besides the client's
 * (docs/design.md#first-wave). It reads what stallscope's client sends: a
 * head up to its blank line and a `content-length` body; anything else
 * closes the connection.
 */
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { WARM_TLS } from './loopbackTls.ts';

/** A request head this long without its end is not one of ours. */
const MAX_HEAD = 64 * 1024;

export interface LoopbackServer {
  server: Server;
  /** Every accepted (TCP) socket until it closes: the warm-up destroys what is left. */
  sockets: Set<Socket>;
}

export async function loopbackServer(events: string[], tls: boolean): Promise<LoopbackServer> {
  const pieces = chunkedPieces(events);
  const sockets = new Set<Socket>();
  let served = 0;
  const onSocket = (socket: Socket): void => {
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      for (;;) {
        const request = nextRequest(buffered);
        if (request === null) break;
        if (request === 'refused') return void socket.destroy();
        buffered = buffered.subarray(request.size);
        // Every other response closes its connection: keep-alive reuse and reconnecting both run (targets and
        // connection modes differ in which they use).
        const close = served++ % 2 === 1 || request.close;
        socket.write(close ? HEAD_CLOSE : HEAD_KEEP, 'latin1');
        for (const p of pieces) socket.write(p, 'latin1');
        if (close) return void socket.end();
      }
    });
  };
  const server = tls ? createTlsServer(WARM_TLS, onSocket) : createNetServer(onSocket);
  // A TLS server's `connection` is the raw TCP socket: destroying it ends the TLS one too.
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { server, sockets };
}

const HEAD =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n';
const HEAD_KEEP = `${HEAD}connection: keep-alive\r\nkeep-alive: timeout=5\r\n\r\n`;
const HEAD_CLOSE = `${HEAD}connection: close\r\n\r\n`;

/**
 * The first whole request at the start of `b`: its bytes (head and body) and whether it asked for the close;
 * null when it is not all there yet, 'refused' when it is not a request this server reads.
 */
function nextRequest(b: Buffer): { size: number; close: boolean } | null | 'refused' {
  const end = b.indexOf('\r\n\r\n');
  if (end < 0) return b.length > MAX_HEAD ? 'refused' : null;
  const head = b.toString('latin1', 0, end + 2);
  const length = /\r\ncontent-length: *(\d+)\r\n/i.exec(head);
  if (!length) return 'refused';
  const size = end + 4 + Number(length[1]);
  return b.length >= size ? { size, close: /\r\nconnection: *close\r\n/i.test(head) } : null;
}

/** The stream as chunked-encoding pieces, a chunk every third event (sometimes mid-event), then the last chunk. */
function chunkedPieces(events: string[]): string[] {
  const body = events.join('');
  const cuts = [0];
  for (let at = 0, i = 0; i < events.length; i++) {
    at += events[i].length;
    if (i % 3 === 2) cuts.push(at - (i % 2 ? 7 : 0));
  }
  cuts.push(body.length);
  const out: string[] = [];
  for (let k = 1; k < cuts.length; k++) {
    const piece = body.slice(cuts[k - 1], cuts[k]);
    // Written as latin1: a character is a byte.
    if (piece.length > 0) out.push(`${piece.length.toString(16)}\r\n${piece}\r\n`);
  }
  out.push('0\r\n\r\n');
  return out;
}
