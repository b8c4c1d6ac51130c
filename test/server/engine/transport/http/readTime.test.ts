/**
 * A read is stamped when it is taken from its socket and handled at the end
 * of the turn (docs/design.md#read-time): responses that arrive together are
 * not charged with the client's work on each other. The clock here is a step
 * clock (each reading is one more than the last), so "stamped before any of
 * them was handled" is exact: the burst's stamps are consecutive readings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '#test/helpers/serverProcess.ts';
import { RunConnections } from '#server/engine/transport/http/dispatcher.ts';
import { Connection } from '#server/engine/transport/h1/connection.ts';
import { ReadTurn, type ReadSource } from '#server/engine/transport/h1/readTurn.ts';
import type { ExchangeHandler } from '#server/engine/transport/h1/socketExchange.ts';
import { SseExchange } from '#server/engine/transport/http/exchange.ts';
import { AttemptSignal } from '#server/engine/transport/http/attemptSignal.ts';
import { StreamParser } from '#server/engine/transport/reading/streamParser.ts';
import { PcmReader } from '#server/engine/transport/reading/pcmReader.ts';
import { newRecord } from '#server/engine/records/record.ts';
import { fullStream } from '#test/helpers/sse.ts';

let proc: ServerProcess | null = null;
let plain: Server | null = null;
let raw: ChildProcess | null = null;
afterEach(async () => {
  raw?.stdin?.end();
  if (raw && raw.exitCode === null) await once(raw, 'exit');
  raw = null;
  await proc?.close();
  proc = null;
  await new Promise<void>((r) => (plain ? plain.close(() => r()) : r()));
  plain = null;
});

/** Holds the thread (and its event loop) for `ms`: what arrives meanwhile waits in the kernel for one poll. */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** The one connection of a run's client (its private set: a test listens on that socket after the client does). */
function onlyConnection(c: RunConnections): Connection {
  const [conn] = (c as unknown as { all: Set<Connection> }).all;
  return conn;
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** An exchange handler that records each body read's stamp and the clock when it was handled. */
class Recorder implements ExchangeHandler {
  readonly reads: { readT: number; handledAt: number }[] = [];
  readonly done: Promise<'complete' | Error>;
  private finish!: (v: 'complete' | Error) => void;
  constructor(
    private readonly clock: { now: () => number },
    /** Clock readings its handling takes (a parse's work, on the step clock). */
    private readonly work: number,
  ) {
    this.done = new Promise((r) => (this.finish = r));
  }
  onConnect(): void {}
  onHeaders(): boolean {
    return true;
  }
  onData(_chunk: Uint8Array, readT: number): boolean {
    this.reads.push({ readT, handledAt: this.clock.now() });
    for (let i = 0; i < this.work; i++) this.clock.now();
    return true;
  }
  onComplete(_endT: number | null): void {
    this.finish('complete');
  }
  onError(err: Error): void {
    this.finish(err);
  }
}

function stepClock(): { now: () => number } {
  let k = 0;
  return { now: () => ++k };
}

const post = {
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json' },
  body: '{}',
  reset: false,
};

/**
 * `fn` in the turn of the read that completes the response (its chunked body's last chunk), after the connection's
 * own listener: the first read need not hold the whole response — on a loaded machine the server's later tokens
 * arrive in later reads, and a reset or sweep heard then is rightly a failed response, not what these tests ask.
 */
function onResponseEnd(socket: Socket, fn: () => void): void {
  const seen = (chunk: Buffer) => {
    if (!chunk.toString('latin1').endsWith('0\r\n\r\n')) return;
    socket.off('data', seen);
    fn();
  };
  socket.on('data', seen);
}

describe('reads stamped when read, handled at the end of the turn', () => {
  it('a burst of responses read in one turn: every stamp comes before any handling (5 bursts, 2–6 responses)', async () => {
    // The server answers 30 ms after each request; the client's thread is held meanwhile, so the whole burst is
    // in the kernel at the next poll, as a first wave's answers are when the client is busy.
    proc = await startServerProcess({ rest: { kind: 'ok', tokens: 3, delayMs: 30 } });
    for (const n of [2, 6, 3, 5, 4]) {
      const clock = stepClock();
      const c = new RunConnections(proc.url, { maxConcurrency: n, mode: 'keep_alive', now: clock.now });
      try {
        expect(await c.preconnect(n)).toBe(n);
        // Each handling takes 10 readings of the clock: handled as read, a later read's stamp would come after them.
        const handlers = Array.from({ length: n }, () => new Recorder(clock, 10));
        for (const h of handlers) c.dispatch(post, h);
        block(300);
        expect(await Promise.all(handlers.map((h) => h.done))).toEqual(handlers.map(() => 'complete'));
        const first = handlers.map((h) => h.reads[0]).sort((a, b) => a.readT - b.readT);
        const t0 = first[0].readT;
        expect(first.map((r) => r.readT)).toEqual(first.map((_, i) => t0 + i));
        // And each was handled after the whole turn's reads were stamped.
        for (const r of first) expect(r.handledAt).toBeGreaterThan(t0 + n - 1);
      } finally {
        await c.sweep(null);
      }
    }
  });

  it('the sweep hands over what was read before it: a response read whole completes, not failed by the sweep', async () => {
    proc = await startServerProcess({ rest: { kind: 'ok', tokens: 3, delayMs: 10 } });
    const clock = stepClock();
    const c = new RunConnections(proc.url, { maxConcurrency: 1, mode: 'keep_alive', now: clock.now });
    let swept: Promise<unknown> | null = null;
    try {
      expect(await c.preconnect(1)).toBe(1);
      const h = new Recorder(clock, 0);
      c.dispatch(post, h);
      block(100);
      // The sweep starts in the same turn as the read, right after it (a listener added after the connection's).
      const conn = onlyConnection(c);
      swept = new Promise<unknown>((r) => onResponseEnd(conn.socket, () => r(c.sweep(null))));
      expect(await h.done).toBe('complete');
    } finally {
      await (swept ?? c.sweep(null));
    }
  });

  it('a socket error heard in the turn of a read that completed the response: the response completes', async () => {
    proc = await startServerProcess({ rest: { kind: 'ok', tokens: 3, delayMs: 10 } });
    const c = new RunConnections(proc.url, { maxConcurrency: 1, mode: 'keep_alive' });
    try {
      expect(await c.preconnect(1)).toBe(1);
      const h = new Recorder(stepClock(), 0);
      c.dispatch(post, h);
      block(100);
      const conn = onlyConnection(c);
      // As a reset read right after the response would be (Linux reports one after queued bytes as an end).
      onResponseEnd(conn.socket, () =>
        conn.socket.emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })),
      );
      expect(await h.done).toBe('complete');
    } finally {
      await c.sweep(null);
    }
  });

  it('an idle connection with a read not handled yet is not fresh, and the read closes it', async () => {
    let serverSide: Socket | null = null;
    plain = createServer((s) => (serverSide = s));
    await new Promise<void>((r) => plain!.listen(0, '127.0.0.1', () => r()));
    const port = (plain.address() as AddressInfo).port;
    const reads = new ReadTurn(() => performance.now() / 1000);
    const conn = await new Promise<Connection>((resolve) => {
      const c = new Connection({ host: '127.0.0.1', port, tls: false }, reads, resolve, () => undefined);
      c.socket.on('error', () => undefined);
    });
    conn.idleSince = performance.now();
    conn.maxIdleMs = 60_000;
    expect(conn.fresh(performance.now())).toBe(true);
    const freshAtRead = new Promise<boolean>((r) => conn.socket.once('data', () => r(conn.fresh(performance.now()))));
    const closed = new Promise<void>((r) => conn.socket.once('close', () => r()));
    while (!serverSide) await turn();
    (serverSide as Socket).write('HTTP/1.1 200 OK\r\n\r\n'); // a server talking on an idle connection
    expect(await freshAtRead).toBe(false);
    await closed;
  });

  it('ReadTurn: handles nothing in the turn that read, then all in order with their stamps; flush() at once', async () => {
    const clock = stepClock();
    const turnReads = new ReadTurn(clock.now);
    const handled: string[] = [];
    const fake = (name: string): ReadSource => ({
      unread: 0,
      handle(chunk: Buffer, readT: number) {
        handled.push(`${name}:${chunk.toString()}@${readT}`);
        clock.now(); // handling moves the clock on
      },
    });
    const a = fake('a');
    const b = fake('b');
    turnReads.push(a, Buffer.from('1'));
    turnReads.push(b, Buffer.from('2'));
    turnReads.push(a, Buffer.from('3'));
    expect(a.unread).toBe(2);
    await Promise.resolve();
    await new Promise((r) => process.nextTick(r));
    expect(handled).toEqual([]);
    await turn();
    expect(handled).toEqual(['a:1@1', 'b:2@2', 'a:3@3']);
    expect(a.unread).toBe(0);
    turnReads.push(b, Buffer.from('4'));
    turnReads.flush();
    expect(handled.at(-1)).toBe('b:4@7');
    await turn();
    expect(handled).toHaveLength(4); // the turn's own pass found nothing left
  });

  it("the stream parser's messages take the read's stamp, not the clock at the push", () => {
    const record = newRecord(4, 10);
    const parser = new StreamParser(record, { now: () => 100 });
    const body = fullStream(3).join('');
    parser.push(new TextEncoder().encode(body), 12.5);
    parser.end();
    expect(record.success).toBe(true);
    expect(record.ttft).toBe(2.5);
    expect(record.latency).toBe(2.5);
    // Without a stamp, the push's own clock reading.
    const other = newRecord(4, 10);
    const p2 = new StreamParser(other, { now: () => 100 });
    p2.push(new TextEncoder().encode(body));
    p2.end();
    expect(other.ttft).toBe(90);
  });

  it("the speech reader's chunks and its end take the reads' stamps, not the clock when handled", () => {
    const record = newRecord(3, 10);
    const reader = new PcmReader(
      record,
      { now: () => 100 },
      { sampleRate: 24000, channels: 1, continuityThresholdS: 0.1 },
    );
    reader.push(new Uint8Array(24000), 10.25);
    reader.push(new Uint8Array(24000), 10.5);
    reader.end(10.75);
    expect(record.audioTtfp).toBe(0.25);
    expect(record.latency).toBe(0.75);
    expect(record.audioRtf).toBe(0.75);
  });

  it("a response's end, on the wire, reaches its reader with the time of the read that ended it", async () => {
    proc = await startServerProcess({ rest: { kind: 'ok', tokens: 3, delayMs: 10 } });
    const clock = stepClock();
    const c = new RunConnections(proc.url, { maxConcurrency: 1, mode: 'keep_alive', now: clock.now });
    try {
      const ends: (number | null)[] = [];
      const h = new Recorder(clock, 3);
      const onComplete = h.onComplete.bind(h);
      h.onComplete = (endT) => {
        ends.push(endT);
        onComplete(endT);
      };
      c.dispatch(post, h);
      expect(await h.done).toBe('complete');
      // The last read's stamp, though its handling read the clock 3 times more.
      expect(ends).toEqual([h.reads.at(-1)!.readT]);
    } finally {
      await c.sweep(null);
    }
  });

  it("an exchange's end is handed on in the next turn, after that turn's reads", async () => {
    const ex = new SseExchange(new AttemptSignal(), () => null);
    let status = -1;
    void ex.done.then((s) => (status = s));
    ex.onConnect(() => undefined);
    ex.onHeaders(204, []);
    ex.onComplete(null);
    await Promise.resolve();
    await new Promise((r) => process.nextTick(r));
    expect(status).toBe(-1);
    await turn();
    expect(status).toBe(204);
  });
});

describe("a socket's end and errors come after its reads", () => {
  /**
   * A raw server in its own process answering each request's first bytes with `respond` (JavaScript run
   * there, `s` its socket): the client's thread is held while it answers, so the answer and what follows it
   * (a reset: Linux reports it after the queued bytes as an end) are read in one turn.
   */
  async function rawServer(respond: string): Promise<string> {
    const code =
      `const srv = require('node:net').createServer((s) => s.once('data', () => { ${respond} }));` +
      `srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));` +
      `process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
    raw = child;
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    return `http://127.0.0.1:${line.toString().trim()}`;
  }

  async function oneRequest(url: string): Promise<'complete' | Error> {
    const clock = stepClock();
    const c = new RunConnections(url, { maxConcurrency: 1, mode: 'keep_alive', now: clock.now });
    try {
      expect(await c.preconnect(1)).toBe(1);
      const h = new Recorder(clock, 0);
      c.dispatch(post, h);
      block(100);
      return await h.done;
    } finally {
      await c.sweep(null);
    }
  }

  it('a whole response, then a reset: the response completes before the error is heard', async () => {
    const url = await rawServer(
      `s.write('HTTP/1.1 200 OK\\r\\ncontent-type: text/event-stream\\r\\ncontent-length: 15\\r\\n\\r\\ndata: {"x":1}\\n\\n');` +
        `s.resetAndDestroy();`,
    );
    for (let i = 0; i < 5; i++) expect(await oneRequest(url)).toBe('complete');
  });
});
