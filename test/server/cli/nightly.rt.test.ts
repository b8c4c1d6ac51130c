/**
 * The nightly MiniCPM-o accuracy job's command line, as is, with only
 * `--base-url` added (README "Use it in the nightly"): `stallscope bench`
 * against the reproduction server, the Seed-TTS dataset named by its Hub id
 * and read from a Hugging Face cache made here, and the WER gate
 * transcribing with stallscope's own transcription server in `python3` on
 * PATH (the repository's .venv), loading `openai/whisper-large-v3` from that
 * cache — a tiny Whisper with random weights made by
 * test/fixtures/asr/make_tiny_whisper.py. What is set around the command is
 * the environment a CI node has: HF_HUB_CACHE, HF_HUB_OFFLINE, PATH, and
 * SEED_TTS_WER_SAVE_AUDIO_DIR to keep the answers' audio.
 *
 * The transcripts must equal what the same model returns when called
 * directly in Python (test/fixtures/asr/whisper_direct.py) on the 16 kHz WAV
 * the gate uploads: the path is proven; accuracy stays with the real-speech
 * test. Real processes and real time: in the `realtime` project.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startReproServer } from '#server/repro/server.ts';
import { parseWav } from '#server/engine/transport/reading/wav.ts';
import { encodeWav16, resample } from '#server/engine/accuracy/resample.ts';
import { REPO } from '#test/helpers/benchChild.ts';
import { ensureBuild } from '#test/helpers/ensureBuild.ts';
import { venvPython } from '#test/helpers/tools.ts';

const run = promisify(execFile);
const DATASET_COMMIT = 'c'.repeat(40);
const WHISPER_COMMIT = 'd'.repeat(40);

/** The job's arguments (vLLM-Omni's nightly MiniCPM-o 4.5 accuracy job), verbatim; `--base-url` is added. */
const JOB_ARGS = [
  '--omni',
  '--backend',
  'openai-chat-omni',
  '--endpoint',
  '/v1/chat/completions',
  '--model',
  'openbmb/MiniCPM-o-4_5',
  '--dataset-name',
  'seed-tts',
  '--dataset-path',
  'zhaochenyang20/seed-tts-eval',
  '--seed-tts-locale',
  'en',
  '--num-prompts',
  '2000',
  '--no-oversample',
  '--max-concurrency',
  '10',
  '--request-rate',
  'inf',
  '--num-warmups',
  '0',
  '--percentile-metrics',
  'ttft,tpot,itl,e2el,audio_ttfp,audio_rtf',
  '--extra-body',
  '{"modalities":["text","audio"],"chat_template_kwargs":{"enable_thinking":false,"use_tts_template":true}}',
  '--save-result',
  '--seed-tts-wer-eval',
  '--seed-tts-wer-save-items',
];

let dir: string;
let cache: string;
let whisper: string;
let target: Awaited<ReturnType<typeof startReproServer>> | null = null;
/** A 16 kHz upload of the first test and what the model, called directly, wrote for it. */
let direct: { wav: string; transcript: string } | null = null;

beforeAll(async () => {
  ensureBuild();
  dir = mkdtempSync(join(tmpdir(), 'stallscope-nightly-'));
  cache = join(dir, 'hf-cache');
  // The dataset as a node that ran the old job holds it: refs/main → its snapshot.
  const dataset = join(cache, 'datasets--zhaochenyang20--seed-tts-eval');
  cpSync(join(REPO, 'test/fixtures/datasets/seed-tts/en'), join(dataset, 'snapshots', DATASET_COMMIT, 'en'), {
    recursive: true,
  });
  mkdirSync(join(dataset, 'refs'));
  writeFileSync(join(dataset, 'refs', 'main'), DATASET_COMMIT);
  // openai/whisper-large-v3 in the same cache, as transformers finds it offline: a tiny one.
  const model = join(cache, 'models--openai--whisper-large-v3');
  whisper = join(model, 'snapshots', WHISPER_COMMIT);
  await run(venvPython('the nightly test (torch, transformers)'), [
    join(REPO, 'test/fixtures/asr/make_tiny_whisper.py'),
    whisper,
  ]);
  mkdirSync(join(model, 'refs'));
  writeFileSync(join(model, 'refs', 'main'), WHISPER_COMMIT);
  target = await startReproServer({ log: () => undefined });
}, 120_000);

afterAll(async () => {
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

function bench(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [join(REPO, 'bin/stallscope.js'), 'bench', ...args], {
    cwd: dir,
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

/** The 16 kHz WAV the gate uploads for a kept 24 kHz answer: its resampling, its encoding. */
function uploaded(saved: Buffer): Buffer {
  const info = parseWav(saved);
  const pcm = saved.subarray(info.dataOffset, info.dataOffset + info.pcmBytes);
  const mono = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength));
  return encodeWav16(resample(mono, info.sampleRate, 16000), 16000);
}

describe("the nightly job's command line", () => {
  it('runs to a verdict with a cached dataset and its own Whisper, transcribing as the model does when called directly', async () => {
    const audioDir = join(dir, 'audio');
    const venvBin = dirname(venvPython('the nightly test'));
    const t0 = performance.now();
    const r = await bench([...JOB_ARGS, '--base-url', target!.url], {
      HF_HUB_CACHE: cache,
      HF_HUB_OFFLINE: '1',
      PATH: `${venvBin}:${process.env.PATH ?? ''}`,
      SEED_TTS_WER_SAVE_AUDIO_DIR: audioDir,
    });
    const seconds = (performance.now() - t0) / 1000;
    console.log(`[nightly] the job's command line ran to its verdict in ${seconds.toFixed(1)} s (wall time)`);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(
      `Seed-TTS dataset zhaochenyang20/seed-tts-eval (en/) from the Hugging Face cache: ${cache}/datasets--zhaochenyang20--seed-tts-eval/snapshots/${DATASET_COMMIT}`,
    );
    expect(r.out).toMatch(
      /recogniser openai\/whisper-large-v3 at http:\/\/127\.0\.0\.1:\d+\/v1\/audio\/transcriptions \(stallscope's own, python3\)/,
    );

    const resultFile = readdirSync(dir).find((f) => f.endsWith('.json'))!;
    const result = JSON.parse(readFileSync(join(dir, resultFile), 'utf8')) as Record<string, unknown>;
    expect(result.verdict).toBe('passed');
    // The fixture's en split: 4 usable rows (a malformed row and a row without its WAV are skipped).
    expect(result.seed_tts_content_evaluated).toBe(4);
    const items = result.seed_tts_wer_eval_items as { utterance_id: string; asr_raw: string }[];
    const transcripts = items.map((i) => i.asr_raw);
    expect(new Set(transcripts).size).toBeGreaterThan(1); // different audio, different text: the audio reached the model

    // The same model, called directly on the same 16 kHz audio.
    const saved = readdirSync(audioDir).sort();
    expect(saved).toHaveLength(4);
    const wavs = saved.map((name, i) => {
      const p = join(dir, `upload-${i}.wav`);
      writeFileSync(p, uploaded(readFileSync(join(audioDir, name))));
      return p;
    });
    const { stdout } = await run(venvPython('the nightly test'), [
      join(REPO, 'test/fixtures/asr/whisper_direct.py'),
      whisper,
      ...wavs,
    ]);
    expect(transcripts).toEqual(JSON.parse(stdout));
    direct = { wav: wavs[0], transcript: (JSON.parse(stdout) as string[])[0] };
  }, 240_000);

  it('`stallscope asr-server` serves the same model alone, refuses audio that is not 16 kHz, and stops on SIGTERM', async () => {
    expect(direct, 'runs after the command-line test, which makes the audio and its direct transcript').not.toBeNull();
    const child = spawn(
      process.execPath,
      [
        join(REPO, 'bin/stallscope.js'),
        'asr-server',
        '--python',
        venvPython('the asr-server test'),
        '--model',
        whisper,
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]);
      });
      void exited.then((code) => reject(new Error(`asr-server exited ${code}: ${err}`)));
    });
    const upload = async (
      wav: Buffer,
    ): Promise<{ status: number; body: { text?: string; error?: { message: string } } }> => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'audio.wav');
      form.append('model', 'openai/whisper-large-v3');
      form.append('language', 'en');
      form.append('temperature', '0');
      const res = await fetch(`${url}/v1/audio/transcriptions`, { method: 'POST', body: form });
      return { status: res.status, body: (await res.json()) as { text?: string; error?: { message: string } } };
    };
    expect(await upload(readFileSync(direct!.wav))).toEqual({ status: 200, body: { text: direct!.transcript } });
    const at24k = encodeWav16(new Float32Array(2400), 24000);
    expect(await upload(at24k)).toEqual({
      status: 400,
      body: { error: { message: 'expected 16 kHz mono 16-bit PCM, got 24000 Hz, 1 channel(s), 16-bit' } },
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);
});
