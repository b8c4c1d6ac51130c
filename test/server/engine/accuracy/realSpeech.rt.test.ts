/**
 * The Seed-TTS gate on real speech, end to end: a target that answers each
 * request with espeak-ng speech (24 kHz, streamed as WAV chunks), the
 * engine's spool → 16 kHz resampling → WAV → multipart upload, and a real
 * recogniser (pocketsphinx behind test/fixtures/asr/transcribe_server.py,
 * which refuses anything but 16 kHz mono 16-bit WAV). The control answers
 * each request with speech of a *different* sentence of the same set (noise
 * would give empty transcripts, which are excluded and prove nothing): the
 * matched WER must be low and well below the control's.
 * Real processes and real time: in the `realtime` project.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupedConfig } from '#test/helpers/benchConfig.ts';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSseServer, type Arrival, type Behaviour, type TestServer } from '#test/helpers/sseServer.ts';
import { DONE, roleEvent, sse, textEvent, usageEvent } from '#test/helpers/sse.ts';
import { makeWav } from '#test/helpers/wav.ts';
import { debianTool, REPO_ROOT, venvPython } from '#test/helpers/tools.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { parseWav } from '#server/engine/transport/reading/wav.ts';

const run = promisify(execFile);
const CORPUS = join(REPO_ROOT, 'test/fixtures/asr/sentences.txt');
const SENTENCES = readFileSync(CORPUS, 'utf8')
  .split('\n')
  .map((s) => s.trim())
  .filter(Boolean);

let dir: string;
let asr: ChildProcess | null = null;
let asrUrl = '';
let target: TestServer | null = null;

/** espeak-ng speech of `text` as 24 kHz mono s16 (espeak renders 22.05 kHz; linear interpolation up). */
async function speech24k(text: string): Promise<Int16Array> {
  const espeak = debianTool('/usr/bin/espeak-ng', 'espeak-ng');
  const { stdout } = await run(espeak, ['-v', 'en-us', '--stdout', text], { encoding: 'buffer', maxBuffer: 16 << 20 });
  const info = parseWav(stdout);
  const src = new Int16Array(
    stdout.buffer.slice(stdout.byteOffset + info.dataOffset, stdout.byteOffset + info.dataOffset + info.pcmBytes),
  );
  const n = Math.floor((src.length * 24000) / info.sampleRate);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const x = (i * info.sampleRate) / 24000;
    const k = Math.floor(x);
    const f = x - k;
    out[i] = Math.round(src[k] * (1 - f) + (src[Math.min(k + 1, src.length - 1)] ?? 0) * f);
  }
  return out;
}

function wavChunk(pcm: Int16Array): string {
  const head = makeWav(0, 24000); // a 44-byte header; sizes patched below
  const body = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const wav = Buffer.concat([head, body]);
  wav.writeUInt32LE(36 + body.length, 4);
  wav.writeUInt32LE(body.length, 40);
  return sse({ choices: [{ index: 0, delta: { content: wav.toString('base64') } }], modality: 'audio' });
}

/** Answers sentence k with speech of sentence `pick(k)`, streamed in 0.5 s WAV chunks. */
function speakingTarget(pick: (k: number) => number) {
  const cache = new Map<number, Promise<Int16Array>>();
  return async (a: Arrival): Promise<Behaviour> => {
    const text = (a.body.messages as { content: { text: string }[] }[])[1].content[0].text;
    const k = pick(SENTENCES.indexOf(text));
    if (!cache.has(k)) cache.set(k, speech24k(SENTENCES[k]));
    const pcm = await cache.get(k)!;
    const chunks = [roleEvent(), textEvent(text, 1)];
    for (let at = 0; at < pcm.length; at += 12000) chunks.push(wavChunk(pcm.subarray(at, at + 12000)));
    chunks.push(usageEvent(1), DONE);
    return { kind: 'raw', chunks };
  };
}

function config(root: string): RunConfig {
  return groupedConfig({
    runId: 'speech',
    baseUrl: target!.url,
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'openbmb/MiniCPM-o-4_5',
    dataset: { name: 'seed-tts', path: root, locale: 'en', noOversample: true, disableShuffle: true },
    numPrompts: SENTENCES.length,
    maxConcurrency: 2,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['e2el'],
    metricPercentiles: [99],
    timeouts: { totalS: 30 },
    failFast: true,
    thresholds: ['seed_tts_content_error_mean<=0.5'],
    save: null,
    seedTtsEval: { asrUrl, asrModel: 'pocketsphinx-en-us', asrConcurrency: 2, asrTimeoutS: 30, saveItems: true },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-speech-'));
  const py = venvPython('the real-speech Seed-TTS test (aiohttp + pocketsphinx)');
  asr = spawn(py, [join(REPO_ROOT, 'test/fixtures/asr/transcribe_server.py'), '--corpus', CORPUS], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  asr.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  asrUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the transcription server did not start in 30 s: ${err}`)), 30_000);
    let out = '';
    asr!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    asr!.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `the transcription server exited (${code}): ${err} (pocketsphinx and aiohttp come from .ci/requirements.txt: npm run setup)`,
        ),
      );
    });
  });
}, 40_000);

afterAll(async () => {
  await target?.close();
  if (asr && asr.exitCode === null) {
    const exited = new Promise((r) => asr!.once('exit', r));
    asr.stdin!.end(); // the server exits when its stdin closes
    const t = setTimeout(() => asr!.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
  }
  rmSync(dir, { recursive: true, force: true });
});

function dataset(): string {
  const root = join(dir, 'seed');
  mkdirSync(join(root, 'en', 'prompt-wavs'), { recursive: true });
  writeFileSync(join(root, 'en', 'prompt-wavs', 'p.wav'), makeWav(240));
  writeFileSync(
    join(root, 'en', 'meta.lst'),
    SENTENCES.map((t, i) => `speech_${i}|a prompt|prompt-wavs/p.wav|${t}`).join('\n'),
  );
  return root;
}

describe('Seed-TTS gate on real speech (espeak-ng → pocketsphinx)', () => {
  it('matched speech scores a low WER, well below speech of other sentences', async () => {
    const root = dataset();
    target = await startSseServer(speakingTarget((k) => k));
    const matched = await runBenchmark(config(root));
    await target.close();
    target = await startSseServer(speakingTarget((k) => (k + 1) % SENTENCES.length));
    const control = await runBenchmark(config(root));

    const show = (name: string, r: Record<string, unknown>): string =>
      `${name}: mean ${String(r.seed_tts_content_error_mean)}, median ${String(r.seed_tts_content_error_median)}, ` +
      `evaluated ${String(r.seed_tts_content_evaluated)}; ` +
      (r.seed_tts_wer_eval_items as { wer?: number; asr_raw?: string; error?: string }[])
        .map((i) => `${i.wer ?? i.error} "${i.asr_raw ?? ''}"`)
        .join(' | ');
    console.log(`[real speech] ${show('matched', matched.result)}\n[real speech] ${show('control', control.result)}`);

    expect(matched.result.seed_tts_content_evaluated).toBe(SENTENCES.length);
    expect(control.result.seed_tts_content_evaluated).toBeGreaterThan(0);
    const m = matched.result.seed_tts_content_error_mean as number;
    const c = control.result.seed_tts_content_error_mean as number;
    expect(m).toBeLessThanOrEqual(0.5);
    expect(m).toBeLessThan(c / 2);
    expect(matched.summary.verdict).toBe('passed');
    expect(control.summary.verdict).toBe('failed');
  }, 60_000);
});
