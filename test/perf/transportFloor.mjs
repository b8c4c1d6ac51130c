// The transport alone, as a whole process, for the whole-process section of engine.bench.ts: `n` POSTs of a
// 1,024-word-prompt body at concurrency 32, each response's bytes counted and nothing else (no parsing, no
// records), through one of three transports:
// - `run`: the run's own client (server/engine/transport/http/dispatcher.ts and h1/, compiled in dist/), as the engine's
//   attempts dispatch;
// - `undici`: a Pool dispatching as the engine's attempts did until the run's own client replaced it
//   (pipelining 1, timeouts off, `reset` for a connection per request), with a handler that only counts;
// - `net`: plain sockets and the least HTTP/1.1 a request needs, written out here: one buffer written per
//   request (`connection: close` per request, or sockets kept and reused), the response's head read up to its
//   blank line, its `content-length` bytes counted. The bench's target (constantTtft.server.ts) answers with a
//   content-length, so that is the only framing this reads; any other answer fails the run.
// The gap between undici and plain sockets is what the HTTP library cost per request in that window (its
// JavaScript and V8's compiling of it); the gap between the run's client and plain sockets is what ours costs.
//
// usage: node transportFloor.mjs run|undici|net URL N keep-alive|per-request   (prints the bytes read)
import { connect } from 'node:net';
import { Pool } from 'undici';

const [kind, url, nArg, mode] = process.argv.slice(2);
const n = Number(nArg);
const CONCURRENCY = 32;
const keep = mode === 'keep-alive';
const origin = new URL(url);
const words = 'time person year way day thing man world life hand part child eye woman place work'.split(' ');
const prompt = Array.from({ length: 1024 }, (_, i) => words[i % words.length]).join(' ');
const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: prompt }], stream: true });
const PATH = '/v1/chat/completions';
let bytes = 0;

/** A dispatch handler that counts the body's bytes and settles on the end: the same for both clients' handler interface. */
function countingHandler(resolve, reject) {
  let status = 0;
  return {
    onConnect() {},
    onHeaders(s) {
      status = s;
      return true;
    },
    onData(chunk) {
      bytes += chunk.length;
      return true;
    },
    onComplete: () => (status === 200 ? resolve() : reject(new Error(`HTTP ${status}`))),
    onError: reject,
  };
}

/** undici, as the engine dispatched. */
function undiciTransport() {
  const pool = new Pool(origin.origin, { connections: CONCURRENCY, headersTimeout: 0, bodyTimeout: 0, pipelining: 1 });
  const headers = { 'content-type': 'application/json' };
  const send = () =>
    new Promise((resolve, reject) => {
      pool.dispatch(
        {
          origin: origin.origin,
          path: PATH,
          method: 'POST',
          headers,
          body,
          reset: !keep,
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        countingHandler(resolve, reject),
      );
    });
  return { send, close: () => pool.destroy() };
}

/** Plain sockets: one write per request, the head up to its blank line, then `content-length` bytes. */
function netTransport() {
  const bodyBytes = Buffer.from(body);
  const request = Buffer.concat([
    Buffer.from(
      `POST ${PATH} HTTP/1.1\r\nhost: ${origin.host}\r\ncontent-type: application/json\r\n` +
        `content-length: ${bodyBytes.length}\r\n${keep ? '' : 'connection: close\r\n'}\r\n`,
      'latin1',
    ),
    bodyBytes,
  ]);
  const idle = [];
  const open = new Set();
  const send = () =>
    new Promise((resolve, reject) => {
      let socket = keep ? idle.pop() : undefined;
      if (!socket) {
        socket = connect(Number(origin.port), origin.hostname);
        const s = socket;
        open.add(s);
        s.once('close', () => open.delete(s));
      }
      let head = null;
      let left = -1;
      const onData = (chunk) => {
        if (left < 0) {
          head = head ? Buffer.concat([head, chunk]) : chunk;
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          const text = head.latin1Slice(0, end);
          const length = /\r\ncontent-length: *(\d+)/i.exec(text);
          if (!text.startsWith('HTTP/1.1 200 ') || !length) return fail(new Error(`not a 200 with a length: ${text}`));
          left = Number(length[1]);
          chunk = head.subarray(end + 4);
        }
        bytes += chunk.length;
        left -= chunk.length;
        if (left > 0) return;
        done();
        if (keep) idle.push(socket);
        else socket.destroy();
        resolve();
      };
      const onClose = () => fail(new Error('the connection closed before the whole response'));
      const done = () => {
        socket.off('data', onData);
        socket.off('error', fail);
        socket.off('close', onClose);
      };
      const fail = (err) => {
        done();
        socket.destroy();
        reject(err);
      };
      socket.on('data', onData);
      socket.on('error', fail);
      socket.on('close', onClose);
      socket.write(request);
    });
  const close = () => {
    for (const s of open) s.destroy();
  };
  return { send, close };
}

/** The run's own client, as the engine's attempts dispatch (the compiled output: `npm run build`). */
async function runTransport() {
  const { RunConnections } = await import('../../dist/server/engine/transport/http/dispatcher.js');
  const connections = new RunConnections(origin.origin, {
    maxConcurrency: CONCURRENCY,
    mode: keep ? 'keep_alive' : 'per_request',
  });
  const headers = { 'content-type': 'application/json' };
  const send = () =>
    new Promise((resolve, reject) => {
      connections.dispatch({ path: PATH, headers, body, reset: !keep }, countingHandler(resolve, reject));
    });
  return { send, close: () => connections.sweep(null) };
}

const transport =
  kind === 'net'
    ? netTransport()
    : kind === 'undici'
      ? undiciTransport()
      : kind === 'run'
        ? await runTransport()
        : null;
if (!transport) throw new Error(`transport ${kind}: expected run, undici or net`);
let next = 0;
try {
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        next++;
        await transport.send();
      }
    }),
  );
} finally {
  await transport.close();
}
process.stdout.write(`${bytes}\n`);
