// The first-wave section's floor (firstWave.ts): a client that does the least a request needs and nothing else, so
// what its first wave shows above its steady state is the server's and the machine's, not a client's. Plain
// sockets, one buffer written per request (a 16-word prompt, as the section's runs send), TTFT = the first byte of
// the response (no parsing, no records), the response's `content-length` bytes counted to know its end.
// keep-alive: its sockets are opened first, as stallscope's keep-alive burst does, and the server gets 20 ms to
// accept them; TTFT from the request's write. per-request: each request connects (all of the first wave's connects
// issued in one turn, as an asyncio client's tasks start), writes at its connect and ends its socket after the
// response; TTFT from the connect, as a connection-per-request client's includes it. Prints the TTFTs in seconds,
// in dispatch order.
//
// usage: node firstWaveFloor.mjs URL CONCURRENCY N [keep-alive|per-request]
import { connect } from 'node:net';

const [url, concArg, nArg, mode = 'keep-alive'] = process.argv.slice(2);
const conc = Number(concArg);
const n = Number(nArg);
const origin = new URL(url);
const prompt = 'time person year way day thing man world life hand part child eye woman place work';
const body = Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: prompt }], stream: true }));
const request = Buffer.concat([
  Buffer.from(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: ${origin.host}\r\ncontent-type: application/json\r\n` +
      `content-length: ${body.length}\r\n\r\n`,
    'latin1',
  ),
  body,
]);
const ttft = new Array(n).fill(0);

/** One request on `socket`: resolves when its whole response was read. `st`: its start (default: now, the write). */
function exchange(socket, i, st = performance.now()) {
  return new Promise((resolve, reject) => {
    let first = true;
    let head = null;
    let left = -1;
    const onData = (chunk) => {
      if (first) {
        ttft[i] = (performance.now() - st) / 1000;
        first = false;
      }
      if (left < 0) {
        head = head ? Buffer.concat([head, chunk]) : chunk;
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = /\r\ncontent-length: *(\d+)/i.exec(head.latin1Slice(0, end));
        if (!length) return fail(new Error('a response without a content-length'));
        left = Number(length[1]);
        chunk = head.subarray(end + 4);
      }
      left -= chunk.length;
      if (left <= 0) {
        done();
        resolve();
      }
    };
    const fail = (err) => {
      done();
      reject(err);
    };
    const onClose = () => fail(new Error('closed before the whole response'));
    const done = () => {
      socket.off('data', onData);
      socket.off('error', fail);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('error', fail);
    socket.on('close', onClose);
    socket.write(request);
  });
}

let next = 0;
if (mode === 'per-request') {
  /** A request on its own connection, written once connected, the socket destroyed after the response. */
  const oneConnection = async (i) => {
    const st = performance.now();
    const s = connect(Number(origin.port), origin.hostname).setNoDelay(true);
    try {
      await new Promise((resolve, reject) => s.once('connect', resolve).once('error', reject));
      await exchange(s, i, st);
    } finally {
      s.destroy();
    }
  };
  const wave = async (count) => {
    next = 0;
    await Promise.all(
      Array.from({ length: conc }, async () => {
        while (next < count) await oneConnection(next++);
      }),
    );
  };
  // Its own code warmed first (its connects and reads compiled, as stallscope's warm-up does for its own), in
  // waves of the run's concurrency, with a pause after for the server to close them all.
  await wave(4 * conc);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await wave(n);
} else {
  const sockets = Array.from({ length: conc }, () => connect(Number(origin.port), origin.hostname).setNoDelay(true));
  await Promise.all(sockets.map((s) => new Promise((resolve) => s.once('connect', resolve))));
  await new Promise((resolve) => setTimeout(resolve, 20));
  try {
    await Promise.all(
      sockets.map(async (s) => {
        while (next < n) await exchange(s, next++);
      }),
    );
  } finally {
    for (const s of sockets) s.destroy();
  }
}
process.stdout.write(JSON.stringify(ttft));
