/**
 * stallscope's own transcription server (python/asr_server.py) in its own
 * process on loopback, in the repository's .venv, loading a tiny Whisper
 * (test/fixtures/asr/make_tiny_whisper.py), with what the kernel says of it:
 * its peak resident memory and its thread count from /proc.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, venvPython } from '#test/helpers/tools.ts';

export interface AsrProcess {
  url: string;
  port: number;
  pid: number;
  /** `VmHWM` (peak resident set) or `Threads` from /proc/PID/status. */
  status(field: 'VmHWM' | 'VmRSS' | 'Threads'): number;
  stop(): Promise<void>;
}

/** Writes a tiny random Whisper to `dir` (a few seconds). */
export async function makeTinyWhisper(dir: string): Promise<string> {
  const py = venvPython('the transcription server test (torch, transformers)');
  await promisify(execFile)(py, [join(REPO_ROOT, 'test/fixtures/asr/make_tiny_whisper.py'), dir]);
  return dir;
}

export async function startAsrServer(model: string, flags: string[] = []): Promise<AsrProcess> {
  const py = venvPython('the transcription server test');
  const child: ChildProcess = spawn(py, [join(REPO_ROOT, 'python/asr_server.py'), '--model', model, ...flags], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, SEED_TTS_EVAL_DEVICE: 'cpu', HF_HUB_OFFLINE: '1' },
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`asr_server.py exited (${code}) before listening: ${err}`)));
  });
  const pid = child.pid!;
  return {
    url,
    port: Number(new URL(url).port),
    pid,
    status(field) {
      const m = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
      return field === 'Threads' ? Number(m[1]) : Number(m[1]) * 1024;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** A raw connection to the server that has written `bytes`; `reply` is all it was sent, once the server closed it. */
export function rawClient(port: number, bytes: Buffer | string): { socket: Socket; reply: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  socket.write(bytes);
  let got = '';
  socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
  const reply = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(got));
    socket.on('error', () => undefined); // a reset is a close too; what was received is the answer
  });
  return { socket, reply };
}

/** A multipart transcription request around `wav`, as the gate sends it. */
export function transcriptionBody(wav: Buffer): { body: Buffer; contentType: string } {
  const boundary = 'stallscopeBoundary7f3a';
  const head = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="model"\r\n\r\nm\r\n` +
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.wav"\r\ncontent-type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, wav, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}
