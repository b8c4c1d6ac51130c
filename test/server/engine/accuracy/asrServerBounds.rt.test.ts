/**
 * stallscope's own transcription server (python/asr_server.py) bounded
 * whatever its clients send (docs/design.md#local-asr): uploads read and
 * decoded one at a time, a body cap named in its --help, a read deadline per
 * request, connections (and so threads) capped. The real server in its own
 * process on loopback with a tiny Whisper; memory and threads as the kernel
 * counts them (/proc/PID/status). Real processes: in the `realtime` project.
 */
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTinyWhisper,
  rawClient,
  startAsrServer,
  transcriptionBody,
  type AsrProcess,
} from '#test/helpers/asrServerProcess.ts';
import { REPO_ROOT, venvPython } from '#test/helpers/tools.ts';
import { waitFor } from '#test/helpers/waitFor.ts';
import { makeWav } from '#test/helpers/wav.ts';

let dir: string;
let model: string;
let server: AsrProcess | null = null;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-asrbounds-'));
  model = await makeTinyWhisper(join(dir, 'whisper'));
}, 120_000);
afterEach(async () => {
  await server?.stop();
  server = null;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MB = 1024 * 1024;

/** A 16 kHz mono 16-bit WAV of `bytes` sample bytes: one second of a tone, repeated. */
function bigWav(bytes: number): Buffer {
  const second = makeWav(16000, 16000);
  const wav = Buffer.alloc(44 + bytes);
  second.copy(wav, 0, 0, 44);
  wav.writeUInt32LE(36 + bytes, 4);
  wav.writeUInt32LE(bytes, 40);
  wav.subarray(44).fill(second.subarray(44));
  return wav;
}

function post(port: number, body: Buffer, contentType: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/audio/transcriptions',
        headers: { 'content-type': contentType, 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function head(length: number): string {
  return (
    'POST /v1/audio/transcriptions HTTP/1.1\r\nhost: 127.0.0.1\r\n' +
    `content-type: multipart/form-data; boundary=b\r\ncontent-length: ${length}\r\n\r\n`
  );
}

describe('asr-server, whatever its clients send', () => {
  it('names its bounds in --help', () => {
    const help = execFileSync(venvPython('asr-server --help'), [join(REPO_ROOT, 'python/asr_server.py'), '--help'], {
      encoding: 'utf8',
    }).replace(/\s+/g, ' ');
    expect(help).toMatch(/--max-upload-bytes .*413 .*\(default 67108864\)/);
    expect(help).toMatch(/--read-timeout .*\(default 30\)/);
    expect(help).toMatch(/--max-connections .*503 .*\(default 64\)/);
  });

  // One server with the default bounds for both: each start loads torch and the model (~17 s on the loaded machine).
  describe('with its default bounds (64 MB, 30 s)', () => {
    let shared: AsrProcess;
    beforeAll(async () => {
      shared = await startAsrServer(model);
    }, 120_000);
    afterAll(() => shared?.stop());

    it('12 concurrent 60 MB uploads: all transcribed, one decoded at a time, the peak under 1 GB', async () => {
      const { body, contentType } = transcriptionBody(bigWav(60 * MB));
      const before = shared.status('VmHWM');
      const answers = await Promise.all(Array.from({ length: 12 }, () => post(shared.port, body, contentType)));
      const peak = shared.status('VmHWM');
      console.log(
        `[asr-server] peak RSS ${(before / MB).toFixed(0)} MB loaded → ${(peak / MB).toFixed(0)} MB after 12 concurrent 60 MB uploads`,
      );
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
      expect(JSON.parse(answers[0].text).text).toEqual(expect.any(String));
      expect(peak).toBeLessThan(1024 * MB);
    }, 120_000);

    it('a body over --max-upload-bytes is refused with 413 at once, unread', async () => {
      const t0 = performance.now();
      // 10 bytes of the 64 MB + 1 announced: waiting for the rest would take the read timeout (30 s).
      const { reply } = rawClient(shared.port, head(64 * MB + 1) + 'x'.repeat(10));
      const got = await reply;
      expect(performance.now() - t0).toBeLessThan(5000);
      expect(got).toMatch(/^HTTP\/1\.1 413 /);
      expect(got).toContain(`larger than this server's cap of ${64 * MB} bytes`);
    }, 60_000);
  });

  it('a sender that stalls mid-body, or trickles its headers, is dropped at --read-timeout', async () => {
    server = await startAsrServer(model, ['--read-timeout', '1']);
    const t0 = performance.now();
    const stalled = rawClient(server.port, head(5000) + '--b\r\n');
    const trickle = rawClient(server.port, 'P');
    // One byte every 200 ms: each recv is quick, the request as a whole is not.
    const drip = setInterval(() => trickle.socket.write('x'), 200);
    try {
      const closed = await Promise.all(
        [stalled, trickle].map(async (c) => {
          await waitFor(() => c.socket.closed || c.socket.readableEnded, 10_000);
          return performance.now() - t0;
        }),
      );
      console.log(`[asr-server] read timeout 1 s: dropped after ${closed.map((ms) => ms.toFixed(0)).join(' / ')} ms`);
      for (const ms of closed) {
        expect(ms).toBeGreaterThanOrEqual(900);
        expect(ms).toBeLessThan(4000);
      }
    } finally {
      clearInterval(drip);
    }
    // The worker the stalled upload held is free again.
    const { body, contentType } = transcriptionBody(makeWav(16000, 16000));
    expect((await post(server.port, body, contentType)).status).toBe(200);
  }, 60_000);

  it('300 connections that send one byte: threads stay at --max-connections, the rest answered 503 + Retry-After', async () => {
    server = await startAsrServer(model, ['--max-connections', '8', '--read-timeout', '5']);
    const idle = server.status('Threads'); // all of the idle server's threads exist once it says it listens
    const clients = Array.from({ length: 300 }, () => rawClient(server!.port, 'P'));
    const replies: string[] = [];
    for (const c of clients) void c.reply.then((r) => replies.push(r));
    // Every connection but the 8 served is answered and closed at once (well before the 5 s read timeout).
    await waitFor(() => replies.length >= 292, 4000);
    const threads = server.status('Threads');
    console.log(`[asr-server] threads: ${idle} idle, ${threads} with 300 one-byte connections (8 served)`);
    expect(threads).toBeLessThanOrEqual(idle + 8);
    const busy = replies.filter((r) => /^HTTP\/1\.1 503 [^]*\r\nretry-after: 1\r\n/i.test(r));
    expect(busy.length).toBeGreaterThanOrEqual(292);
    // The 8 served are dropped at the read timeout, their threads gone; then the server answers again.
    await waitFor(() => replies.length === 300, 10_000);
    await waitFor(() => server!.status('Threads') <= idle, 5000);
    const { body, contentType } = transcriptionBody(makeWav(16000, 16000));
    expect((await post(server.port, body, contentType)).status).toBe(200);
  }, 60_000);
});
