/**
 * The first-wave benchmark's target: every request answered `delayMs` after
 * its body arrived with one pre-built 48-token stream, written whole. Nothing
 * per request is kept or rebuilt, so a burst of the first wave costs the
 * server as little as a steady request does; the test helpers' server
 * (test/helpers/sseServer.ts) records every arrival and builds every
 * response, and under a burst of 64 on two cores its own queue put 20–40 ms
 * into the first wave that no client could remove.
 *
 * argv: "keep-alive" | "per-request" (Connection: close after each
 * response), delay in ms (default 5), audio chunks after the text (default 0;
 * the team dashboard's load bench streams text and audio as an omni target
 * does, without the reproduction server's per-request work). Prints its URL
 * on the first line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fullStream } from '../helpers/sse.ts';

const closeEach = process.argv[2] === 'per-request';
const delayMs = Number(process.argv[3] ?? 5);
const audioChunks = Number(process.argv[4] ?? 0);
const body = Buffer.from(fullStream(48, audioChunks).join(''));
const head = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'content-length': String(body.length),
};
const server = createServer((req, res) => {
  if (closeEach) res.shouldKeepAlive = false;
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      res.writeHead(200, head);
      res.end(body);
    }, delayMs),
  );
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
// The parent's end is ours: no server outlives the benchmark.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
