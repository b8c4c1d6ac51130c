/**
 * The transcription client against recognisers that choose the size and pace
 * of their answer: a 1 GB stream, a valid 60 MB transcript, a slow trickle.
 * Each fails that one transcription within the byte cap or its deadline, and
 * the client's memory does not follow the answer's size.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ASR_ANSWER_CAP, AsrClient, AsrError } from '#server/engine/accuracy/asrClient.ts';

interface Peer {
  url: string;
  /** Bytes of answer the peer managed to write before the client went away. */
  written: () => number;
  close(): Promise<void>;
}

const open: Peer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

/** A recogniser whose answer is written by `answer` once the upload has arrived. */
async function peer(answer: (res: ServerResponse, count: (n: number) => void) => void): Promise<Peer> {
  let written = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res, (n) => (written += n)));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const p: Peer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  open.push(p);
  return p;
}

function client(url: string, timeoutS = 10): AsrClient {
  return new AsrClient({ baseUrl: url, model: 'm', connections: 1, timeoutS });
}

const wav = new Uint8Array(44);

/** Writes `total` bytes in 1 MiB chunks as fast as the socket takes them; stops when the client goes away. */
function stream(res: ServerResponse, count: (n: number) => void, total: number, first = '{"text":"'): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      const c = sent === 0 ? Buffer.concat([Buffer.from(first), chunk]) : chunk;
      sent += c.length;
      count(c.length);
      if (!res.write(c)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end('"}');
  };
  res.on('close', () => (sent = total));
  pump();
}

describe('AsrClient reads at most ASR_ANSWER_CAP bytes of an answer', () => {
  it('a normal answer is the trimmed text', async () => {
    const p = await peer((res) => res.end(JSON.stringify({ text: ' hello world ' })));
    const c = client(p.url);
    await expect(c.transcribe(wav, 'en')).resolves.toBe('hello world');
    await c.close();
  });

  it('an answer of exactly the cap is read; one byte more is refused', async () => {
    const body = (n: number) => {
      const head = '{"text":"';
      return head + 'b'.repeat(n - head.length - 2) + '"}';
    };
    const fits = await peer((res) => res.end(body(ASR_ANSWER_CAP)));
    const over = await peer((res) => res.end(body(ASR_ANSWER_CAP + 1)));
    const a = client(fits.url);
    const b = client(over.url);
    expect((await a.transcribe(wav, 'en')).length).toBe(ASR_ANSWER_CAP - 11);
    await expect(b.transcribe(wav, 'en')).rejects.toThrow(`larger than ${ASR_ANSWER_CAP} bytes`);
    await Promise.all([a.close(), b.close()]);
  });

  it('a valid 60 MB transcript fails that transcription, at the cap', async () => {
    const p = await peer((res, count) => stream(res, count, 60 * 1024 * 1024));
    const c = client(p.url);
    const err = await c.transcribe(wav, 'en').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AsrError);
    expect((err as Error).message).toBe(`the answer is larger than ${ASR_ANSWER_CAP} bytes; not read further`);
    await c.close();
  });

  it('a 1 GB stream is cut at the cap: the client stops reading, its memory does not follow', async () => {
    const p = await peer((res, count) => stream(res, count, 1024 * 1024 * 1024));
    const c = client(p.url, 60);
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    await expect(c.transcribe(wav, 'en')).rejects.toThrow('larger than');
    const elapsed = performance.now() - t0;
    const grown = process.memoryUsage().rss - before;
    await c.close();
    // The socket buffers and one chunk in flight, not the gigabyte: the connection was cancelled.
    await new Promise((r) => setTimeout(r, 50));
    expect(p.written()).toBeLessThan(64 * 1024 * 1024);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('a slow trickle ends at the deadline, named as such', async () => {
    const p = await peer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"text":"');
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('a')), 20);
      res.on('close', () => clearInterval(t));
    });
    const c = client(p.url, 0.3);
    const t0 = performance.now();
    await expect(c.transcribe(wav, 'en')).rejects.toThrow('no answer within 0.3 s');
    expect(performance.now() - t0).toBeLessThan(3_000);
    await c.close();
  });
});
