// The first-wave section's floor with keep-alive (firstWave.ts): a client that does the least a request needs and
// nothing else, so what its first wave shows above its steady state is the server's and the machine's, not a
// client's. Plain sockets, one buffer written per request (a 16-word prompt, as the section's runs send), TTFT = the
// first byte of the response after the request was written (no parsing, no records), the response's
// `content-length` bytes counted to know its end. Its sockets are opened first, as stallscope's keep-alive burst
// does, and the server gets 20 ms to accept them. Prints the TTFTs in seconds, in dispatch order.
//
// usage: node firstWaveFloor.mjs URL CONCURRENCY N
import { connect } from 'node:net';

const [url, concArg, nArg] = process.argv.slice(2);
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

/** One request on `socket`: resolves when its whole response was read. */
function exchange(socket, i) {
  return new Promise((resolve, reject) => {
    const st = performance.now();
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

const sockets = Array.from({ length: conc }, () => connect(Number(origin.port), origin.hostname).setNoDelay(true));
await Promise.all(sockets.map((s) => new Promise((resolve) => s.once('connect', resolve))));
await new Promise((resolve) => setTimeout(resolve, 20));
let next = 0;
try {
  await Promise.all(
    sockets.map(async (s) => {
      while (next < n) await exchange(s, next++);
    }),
  );
} finally {
  for (const s of sockets) s.destroy();
}
process.stdout.write(JSON.stringify(ttft));
