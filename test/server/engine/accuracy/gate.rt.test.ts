/**
 * The Seed-TTS gate end to end against loopback servers: a target whose
 * answers carry audio whose length identifies the sentence, and a fake
 * transcription endpoint with scripted transcripts keyed by that length.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flatConfigOf, groupedConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSseServer, type Arrival, type Behaviour, type TestServer } from '#test/helpers/sseServer.ts';
import { startFakeAsr, type AsrAnswer, type FakeAsr, type Upload } from '#test/helpers/fakeAsr.ts';
import { DONE, roleEvent, sse, textEvent, usageEvent } from '#test/helpers/sse.ts';
import { makeWav } from '#test/helpers/wav.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import type { AccuracyItem, BenchEvent } from '#shared/protocol/protocol.ts';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { run as runCli } from '#server/cli/bench.ts';
import type { StallscopeError } from '#shared/errors.ts';
import { formatSummary } from '#server/engine/results/summary.ts';
import { barePython } from '#test/helpers/tools.ts';

let dir: string;
let target: TestServer | null = null;
let asr: FakeAsr | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-gate-'));
});
afterEach(async () => {
  await target?.close();
  await asr?.close();
  target = asr = null;
  rmSync(dir, { recursive: true, force: true });
});

/** A seed-tts dataset (en) of these target texts, in this order. */
function dataset(texts: string[]): string {
  const root = join(dir, 'seed');
  mkdirSync(join(root, 'en', 'prompt-wavs'), { recursive: true });
  writeFileSync(join(root, 'en', 'prompt-wavs', 'p.wav'), makeWav(240));
  writeFileSync(
    join(root, 'en', 'meta.lst'),
    texts.map((t, i) => `utt_${i}|a prompt|prompt-wavs/p.wav|${t}`).join('\n') + '\n',
  );
  return root;
}

const SAMPLES_24K = (k: number): number => 2400 * (k + 1);
/** What the client uploads for sentence k: int(n × 16000 / 24000) samples. */
const SAMPLES_16K = (k: number): number => Math.floor((SAMPLES_24K(k) * 16000) / 24000);

function audioEvent(samples: number): string {
  return sse({
    choices: [{ index: 0, delta: { content: makeWav(samples).toString('base64') } }],
    modality: 'audio',
  });
}

/** The target: sentence k is answered with text, then 2400·(k+1) samples of audio in two chunks. */
function targetFor(texts: string[], special: Record<string, Behaviour | 'no-audio'> = {}) {
  return (a: Arrival): Behaviour => {
    const text = ((a.body.messages as { content: { text: string }[] }[])[1].content[0].text ?? '') as string;
    const sp = special[text];
    if (sp && sp !== 'no-audio') return sp;
    const k = texts.indexOf(text);
    const n = SAMPLES_24K(k);
    const audio = sp === 'no-audio' ? [] : [audioEvent(n / 2), audioEvent(n / 2)];
    return { kind: 'raw', chunks: [roleEvent(), textEvent(text, 1), ...audio, usageEvent(1), DONE] };
  };
}

/** The recogniser: the transcript scripted for the sentence the upload's length identifies. */
function asrFor(texts: string[], answers: Record<number, AsrAnswer>) {
  return (u: Upload): AsrAnswer => {
    const k = texts.findIndex((_, i) => SAMPLES_16K(i) === u.samples);
    return answers[k] ?? { status: 418, body: `no script for ${u.samples} samples` };
  };
}

function config(root: string, n: number, over: Partial<FlatBenchConfig> = {}): RunConfig {
  return groupedConfig({
    runId: 'gate',
    baseUrl: target!.url,
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'openbmb/MiniCPM-o-4_5',
    dataset: { name: 'seed-tts', path: root, locale: 'en', noOversample: true, disableShuffle: true },
    numPrompts: n,
    maxConcurrency: 2,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['ttft', 'e2el'],
    metricPercentiles: [99],
    timeouts: { totalS: 5 },
    failFast: false,
    thresholds: [],
    save: { dir, filename: 'r.json', detailed: false },
    seedTtsEval: {
      asrUrl: asr!.url,
      asrModel: 'openai/whisper-large-v3',
      asrConcurrency: 2,
      asrHeaders: { 'x-asr-key': 'k1' },
      asrTimeoutS: 5,
      saveItems: true,
    },
    ...over,
  });
}

const SEED_TTS_KEYS = [
  'seed_tts_eval_protocol',
  'seed_tts_content_evaluated',
  'seed_tts_content_error_mean',
  'seed_tts_content_error_median',
  'seed_tts_request_failed',
  'seed_tts_no_pcm',
  'seed_tts_asr_failed',
  'seed_tts_content_metric',
  'seed_tts_sim_evaluated',
  'seed_tts_sim_mean',
  'seed_tts_sim_median',
  'seed_tts_sim_failed',
  'seed_tts_sim_skipped_no_ref',
  'seed_tts_utmos_evaluated',
  'seed_tts_utmos_mean',
  'seed_tts_utmos_median',
  'seed_tts_utmos_failed',
  'seed_tts_wer_eval_items',
];

const spoolDirs = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith('stallscope-audio-'));

describe('Seed-TTS gate with scripted transcripts', () => {
  const TEXTS = ['The cat sat on the mat.', 'One two three four.', 'Hello, world!', 'Red green blue yellow.'];
  const ANSWERS = {
    0: { text: ' The cat sat on the mat ' }, // 0
    1: { text: 'one two three' }, // 1 deletion / 4 = 0.25
    2: { text: 'Hello big world.' }, // 1 insertion / 2 = 0.5
    3: { text: 'red, green, blue, yellow' }, // 0
  };

  it('uploads 16 kHz WAVs as multipart with model, language and temperature 0; exact per-utterance values, mean and median', async () => {
    target = await startSseServer(targetFor(TEXTS));
    asr = await startFakeAsr(asrFor(TEXTS, ANSWERS));
    const before = spoolDirs().length;
    const events: BenchEvent[] = [];
    const out = await runBenchmark(config(dataset(TEXTS), 4, { thresholds: ['seed_tts_content_error_mean<=0.2'] }), {
      onEvent: (e) => events.push(e),
    });

    expect(asr.uploads).toHaveLength(4);
    for (const u of asr.uploads) {
      expect(u.path).toBe('/v1/audio/transcriptions');
      expect(u.fields).toEqual({
        model: 'openai/whisper-large-v3',
        language: 'en',
        temperature: '0',
        response_format: 'json',
      });
      expect(u.fileType).toBe('audio/wav');
      expect(u.wav).toMatchObject({ channels: 1, sampleWidth: 2, sampleRate: 16000 });
      expect(u.headers['x-asr-key']).toBe('k1');
    }
    expect(asr.uploads.map((u) => u.samples).sort((a, b) => a - b)).toEqual([0, 1, 2, 3].map(SAMPLES_16K));

    const r = out.result;
    expect(Object.keys(r).filter((k) => k.startsWith('seed_tts_'))).toEqual(SEED_TTS_KEYS);
    expect(r).toMatchObject({
      seed_tts_eval_protocol: 'seed-tts-eval',
      seed_tts_content_evaluated: 4,
      seed_tts_content_error_mean: 0.1875,
      seed_tts_content_error_median: 0.125,
      seed_tts_request_failed: 0,
      seed_tts_no_pcm: 0,
      seed_tts_asr_failed: 0,
      seed_tts_content_metric: 'wer',
      seed_tts_sim_mean: null,
    });
    expect(r.seed_tts_wer_eval_items).toEqual([
      { utterance_id: 'utt_0', locale: 'en', wer: 0, reference_raw: TEXTS[0], asr_raw: 'The cat sat on the mat' },
      { utterance_id: 'utt_1', locale: 'en', wer: 0.25, reference_raw: TEXTS[1], asr_raw: 'one two three' },
      { utterance_id: 'utt_2', locale: 'en', wer: 0.5, reference_raw: TEXTS[2], asr_raw: 'Hello big world.' },
      { utterance_id: 'utt_3', locale: 'en', wer: 0, reference_raw: TEXTS[3], asr_raw: 'red, green, blue, yellow' },
    ]);
    // The seed_tts keys come after vLLM's metric keys and before stallscope's.
    const keys = Object.keys(r);
    expect(keys.indexOf('seed_tts_eval_protocol')).toBeGreaterThan(keys.indexOf('mean_e2el_ms'));
    expect(keys.indexOf('seed_tts_wer_eval_items')).toBeLessThan(keys.indexOf('timed_out_requests'));
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')).seed_tts_content_error_mean).toBe(0.1875);

    expect(out.summary.verdict).toBe('passed');
    expect(out.summary.metrics.seed_tts_content_error_mean).toBe(0.1875);
    // The console block vLLM-Omni prints.
    const printed = formatSummary(r);
    expect(printed).toContain('Seed-TTS eval (seed-tts-eval protocol)');
    expect(printed).toMatch(/Mean WER:\s+0\.1875 *\n/);
    expect(printed).toMatch(/Median WER:\s+0\.1250 *\n/);
    expect(out.summary.verdictReasons).toContain(
      'threshold seed_tts_content_error_mean<=0.2 holds: seed_tts_content_error_mean = 0.1875',
    );
    // Events: the evaluation starts after the benchmark and reports each request, before run.finished.
    const types = events.map((e) => e.type);
    const started = types.indexOf('accuracy.started');
    expect(started).toBeGreaterThan(types.lastIndexOf('request.completed'));
    expect(types.lastIndexOf('accuracy.item')).toBeLessThan(types.indexOf('run.finished'));
    const items = events.filter((e): e is AccuracyItem => e.type === 'accuracy.item').sort((a, b) => a.index - b.index);
    expect(items.map((e) => [e.index, e.wer, e.transcript])).toEqual([
      [0, 0, 'The cat sat on the mat'],
      [1, 0.25, 'one two three'],
      [2, 0.5, 'Hello big world.'],
      [3, 0, 'red, green, blue, yellow'],
    ]);
    expect(events.find((e) => e.type === 'accuracy.started')).toMatchObject({
      total: 4,
      bounds: ['seed_tts_content_error_mean<=0.2'],
    });
    // The spool folder is gone.
    expect(spoolDirs().length).toBe(before);
  });

  it('the WER threshold is the gate: the same run fails against 0.05', async () => {
    target = await startSseServer(targetFor(TEXTS));
    asr = await startFakeAsr(asrFor(TEXTS, ANSWERS));
    const out = await runBenchmark(config(dataset(TEXTS), 4, { thresholds: ['seed_tts_content_error_mean<=0.05'] }));
    expect(out.summary.verdict).toBe('failed');
    expect(out.summary.verdictReasons).toContain(
      'threshold seed_tts_content_error_mean<=0.05 failed: seed_tts_content_error_mean = 0.1875',
    );
  });

  it('recognition errors, empty transcripts, answers without audio and failed requests are counted and excluded', async () => {
    const texts = ['Good words here.', 'Recogniser breaks.', 'Nothing heard.', 'Silent answer.', 'Target fails.'];
    target = await startSseServer(
      targetFor(texts, { 'Silent answer.': 'no-audio', 'Target fails.': { kind: 'status', status: 500 } }),
    );
    asr = await startFakeAsr(
      asrFor(texts, { 0: { text: 'good words here' }, 1: { status: 500, body: 'model crashed' }, 2: { text: '   ' } }),
    );
    const out = await runBenchmark(config(dataset(texts), 5));
    expect(out.result).toMatchObject({
      seed_tts_content_evaluated: 1,
      seed_tts_content_error_mean: 0,
      seed_tts_content_error_median: 0,
      seed_tts_request_failed: 1,
      seed_tts_no_pcm: 1,
      seed_tts_asr_failed: 2,
    });
    const rows = out.result.seed_tts_wer_eval_items as Record<string, unknown>[];
    expect(rows.map((r) => r.error ?? r.wer)).toEqual([0, 'asr_exception', 'empty_asr', 'no_pcm', 'request_failed']);
    expect(String(rows[1].detail)).toContain('HTTP 500: model crashed');
    expect(rows[4].detail).toBe('Internal Server Error');
    // Only the three answers with audio were uploaded.
    expect(asr.uploads).toHaveLength(3);
    expect(out.summary.verdict).toBe('failed'); // a request failed
  });

  it('fails the run when nothing could be evaluated, even with every request completed and no threshold', async () => {
    const texts = ['First sentence.', 'Second sentence.'];
    target = await startSseServer(targetFor(texts));
    asr = await startFakeAsr(() => ({ text: '' }));
    const out = await runBenchmark(config(dataset(texts), 2));
    expect(out.summary.counts.completed).toBe(2);
    expect(out.result.seed_tts_content_evaluated).toBe(0);
    expect(out.result.seed_tts_content_error_mean).toBeNull();
    expect(out.result.seed_tts_asr_failed).toBe(2);
    expect(out.summary.verdict).toBe('failed');
    expect(out.summary.verdictReasons).toContain(
      'seed-tts WER gate: no utterance could be evaluated (seed_tts_content_evaluated == 0, 2 excluded)',
    );
  });

  it('a timed-out request keeps the run failed_closed whatever the WER; the completed answers are still evaluated', async () => {
    const texts = ['Alpha beta.', 'Gamma delta.', 'Hangs forever.'];
    target = await startSseServer(targetFor(texts, { 'Hangs forever.': { kind: 'hang' } }));
    asr = await startFakeAsr(asrFor(texts, { 0: { text: 'alpha beta' }, 1: { text: 'gamma delta' } }));
    const out = await runBenchmark(
      config(dataset(texts), 3, {
        timeouts: { totalS: 0.5 },
        failFast: true,
        maxConcurrency: 3,
        thresholds: ['seed_tts_content_error_mean<=0.05'],
      }),
    );
    expect(out.result).toMatchObject({
      seed_tts_content_evaluated: 2,
      seed_tts_content_error_mean: 0,
      seed_tts_request_failed: 1,
    });
    expect(out.summary.verdictReasons).toContain(
      'threshold seed_tts_content_error_mean<=0.05 holds: seed_tts_content_error_mean = 0',
    );
    expect(out.summary.verdict).toBe('failed_closed');
  });

  it('keeps each answer as a 24 kHz WAV with --seed-tts-save-audio-dir', async () => {
    const texts = ['Keep me.', 'Keep me too.'];
    target = await startSseServer(targetFor(texts));
    asr = await startFakeAsr(asrFor(texts, { 0: { text: 'keep me' }, 1: { text: 'keep me too' } }));
    const audioDir = join(dir, 'audio');
    const base = config(dataset(texts), 2);
    const out = await runBenchmark({
      ...base,
      accuracy: { seedTtsEval: { ...base.accuracy.seedTtsEval!, saveAudioDir: audioDir } },
    });
    expect(out.result).toMatchObject({
      seed_tts_saved_audio: 2,
      seed_tts_save_audio_failed: 0,
      seed_tts_save_audio_dir: audioDir,
    });
    const files = readdirSync(audioDir).sort();
    expect(files).toEqual(['00000_utt_0.wav', '00001_utt_1.wav']);
    const wav = readFileSync(join(audioDir, files[1]));
    expect(wav.readUInt32LE(24)).toBe(24000);
    expect(wav.readUInt32LE(40)).toBe(2 * SAMPLES_24K(1));
  });
});

describe('Chinese', () => {
  it('sends language zh, converts a traditional transcript to simplified and scores characters', async () => {
    const texts = ['今天天气很好。', '我们明天见！'];
    target = await startSseServer(targetFor(texts));
    // Traditional script back, as Whisper often answers; the second drops one character (我們明天見 → 1/5).
    asr = await startFakeAsr(asrFor(texts, { 0: { text: '今天天氣很好' }, 1: { text: '我們明見' } }));
    const root = join(dir, 'seed');
    mkdirSync(join(root, 'zh', 'prompt-wavs'), { recursive: true });
    writeFileSync(join(root, 'zh', 'prompt-wavs', 'p.wav'), makeWav(240));
    writeFileSync(join(root, 'zh', 'meta.lst'), texts.map((t, i) => `zh_${i}|提示|prompt-wavs/p.wav|${t}`).join('\n'));
    const base = config(root, 2);
    const out = await runBenchmark({
      ...base,
      workload: {
        ...base.workload,
        dataset: { ...base.workload.dataset, locale: 'zh' } as RunConfig['workload']['dataset'],
      },
    });
    expect(asr.uploads.map((u) => u.fields.language)).toEqual(['zh', 'zh']);
    expect(out.result.seed_tts_wer_eval_items).toEqual([
      { utterance_id: 'zh_0', locale: 'zh', wer: 0, reference_raw: texts[0], asr_raw: '今天天气很好' },
      { utterance_id: 'zh_1', locale: 'zh', wer: 0.2, reference_raw: texts[1], asr_raw: '我们明见' },
    ]);
    expect(out.result.seed_tts_content_error_mean).toBe(0.1);
  });
});

describe('interrupted while transcribing', () => {
  it('an interrupt stops the evaluation at once: the run ends interrupted, the rest counted as recognition failures', async () => {
    const texts = ['Never answered one.', 'Never answered two.', 'Never answered three.'];
    target = await startSseServer(targetFor(texts));
    asr = await startFakeAsr(() => ({ hang: true }));
    const ctrl = new AbortController();
    let startedAt = 0;
    const out = await runBenchmark(
      config(dataset(texts), 3, {
        seedTtsEval: { ...config(dataset(texts), 3).accuracy.seedTtsEval!, asrTimeoutS: 30 },
      }),
      {
        signal: ctrl.signal,
        onEvent: (e) => {
          if (e.type === 'accuracy.started') {
            startedAt = performance.now();
            setTimeout(() => ctrl.abort(), 100);
          }
        },
      },
    );
    expect(performance.now() - startedAt).toBeLessThan(2000); // not the 30 s transcription timeout
    expect(out.summary.verdict).toBe('interrupted');
    expect(out.result).toMatchObject({ seed_tts_content_evaluated: 0, seed_tts_asr_failed: 3 });
    const rows = out.result.seed_tts_wer_eval_items as Record<string, unknown>[];
    expect(rows.map((r) => [r.error, r.detail])).toEqual([
      ['asr_exception', 'interrupted'],
      ['asr_exception', 'interrupted'],
      ['asr_exception', 'interrupted'],
    ]);
  });
});

describe('the CLI', () => {
  it('without --asr-url, checks the Python of its own recogniser first: one lacking a package is refused (exit 2) before anything is sent', async () => {
    target = await startSseServer(() => ({ kind: 'status', status: 500 }));
    const argv = [
      '--base-url',
      target.url,
      '--model',
      'm',
      '--dataset-name',
      'seed-tts',
      '--dataset-path',
      dataset(['x.']),
      '--seed-tts-wer-eval',
      '--asr-python',
      barePython(dir),
      '--num-prompts',
      '1',
    ];
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await runCli(argv)).toBe(2);
      const said = err.mock.calls.map((c) => String(c[0])).join('\n');
      expect(said).toMatch(/missing Python packages in .*: torch .*; transformers /);
    } finally {
      err.mockRestore();
    }
    expect(target.arrivals).toHaveLength(0);
  });

  it('reads the ASR flags with their defaults; the ASR flags alone only warn', () => {
    const base = ['--model', 'm', '--dataset-name', 'seed-tts', '--dataset-path', 'd'];
    const p = parseBenchArgs([...base, '--seed-tts-wer-eval', '--asr-url', 'http://127.0.0.1:9/']);
    expect(p.config.accuracy.seedTtsEval).toEqual({
      asrUrl: 'http://127.0.0.1:9',
      asrModel: 'openai/whisper-large-v3',
      asrConcurrency: 4,
      asrHeaders: {},
      asrTimeoutS: undefined,
      saveItems: false,
      saveAudioDir: null,
    });
    const q = parseBenchArgs([
      ...base,
      '--seed-tts-wer-eval',
      '--asr-url',
      'http://h:1',
      '--asr-model',
      'whisper-small',
      '--asr-concurrency',
      '8',
      '--asr-header',
      'Authorization=Bearer x',
      '--seed-tts-wer-save-items',
      '--seed-tts-save-audio-dir',
      '/tmp/a',
    ]);
    expect(q.config.accuracy.seedTtsEval).toMatchObject({
      asrModel: 'whisper-small',
      asrConcurrency: 8,
      asrHeaders: { Authorization: 'Bearer x' },
      saveItems: true,
      saveAudioDir: '/tmp/a',
    });
    const w = parseBenchArgs([...base, '--asr-url', 'http://h:1', '--asr-python', 'py']);
    expect(w.config.accuracy.seedTtsEval).toBeNull();
    expect(w.warnings).toContain('warning: --asr-url, --asr-python: no effect without --seed-tts-wer-eval');
    // Without --asr-url: stallscope's own recogniser, in python3, one transcription at a time.
    const local = parseBenchArgs([...base, '--seed-tts-wer-eval']);
    expect(local.config.accuracy.seedTtsEval).toEqual({
      localAsr: { python: 'python3', startTimeoutS: undefined },
      asrModel: 'openai/whisper-large-v3',
      asrConcurrency: 1,
      asrHeaders: {},
      asrTimeoutS: undefined,
      saveItems: false,
      saveAudioDir: null,
    });
    const named = parseBenchArgs(
      [...base, '--seed-tts-wer-eval', '--asr-python', '/opt/omni/bin/python', '--asr-start-timeout-s', '60'],
      {
        SEED_TTS_HF_WHISPER_MODEL: 'openai/whisper-small',
      },
    );
    expect(named.config.accuracy.seedTtsEval).toMatchObject({
      localAsr: { python: '/opt/omni/bin/python', startTimeoutS: 60 },
      asrModel: 'openai/whisper-small',
    });
    // The local server's flags do nothing beside --asr-url, with a warning.
    const both = parseBenchArgs([...base, '--seed-tts-wer-eval', '--asr-url', 'http://h:1', '--asr-python', 'py']);
    expect(both.config.accuracy.seedTtsEval).not.toHaveProperty('localAsr');
    expect(both.warnings).toContain('warning: --asr-python: no effect with --asr-url (its server is yours)');
    // vLLM-Omni's environment switch acts like the flag.
    expect(parseBenchArgs(base, { SEED_TTS_WER_EVAL: '1' }).config.accuracy.seedTtsEval).toMatchObject({
      localAsr: { python: 'python3' },
    });
  });
});

describe('a rebuilt result (a CLI-reported run exported from the dashboard)', () => {
  it("keeps the gate's keys, strings and nulls included, after the metrics", async () => {
    const { rebuildResult } = await import('#server/dashboard/export/vllmJson.ts');
    const r = rebuildResult(
      {
        id: 'x',
        label: null,
        model: 'm',
        numPrompts: 1,
        maxConcurrency: 1,
        requestRate: 'inf',
        startedAtMs: 0,
        config: null,
        summary: {
          verdict: 'failed',
          verdictReasons: [],
          counts: {
            total: 1,
            completed: 1,
            failed: 0,
            timedOut: 0,
            cancelledAfterTimeout: 0,
            cancelled: 0,
            errored: 0,
            unsent: 0,
          },
          durationS: 1,
          breakerTripped: false,
          cause: null,
          metrics: {
            mean_e2el_ms: 5,
            seed_tts_eval_protocol: 'seed-tts-eval',
            seed_tts_content_evaluated: 0,
            seed_tts_content_error_mean: null,
          },
        },
        counts: {
          total: 1,
          completed: 1,
          failed: 0,
          timedOut: 0,
          cancelledAfterTimeout: 0,
          cancelled: 0,
          errored: 0,
          unsent: 0,
        },
        verdict: 'failed',
        failFast: false,
        breakerCause: null,
        metadata: {},
      },
      [],
    );
    expect(r).toMatchObject({
      seed_tts_eval_protocol: 'seed-tts-eval',
      seed_tts_content_evaluated: 0,
      seed_tts_content_error_mean: null,
    });
    const keys = Object.keys(r);
    expect(keys.indexOf('seed_tts_eval_protocol')).toBeGreaterThan(keys.indexOf('mean_e2el_ms'));
  });
});

describe('refusals before anything is sent', () => {
  it('the gate is for seed-tts runs with an http(s) recogniser and a sane concurrency', async () => {
    const { validateBenchConfig } = await import('#server/engine/run/validate.ts');
    target = await startSseServer(() => ({ kind: 'status', status: 500 }));
    asr = await startFakeAsr(() => ({ text: 'x' }));
    const base = config(dataset(['x.']), 1);
    const flatBase = flatConfigOf(base);
    const refuse = (over: Partial<FlatBenchConfig>): StallscopeError => {
      try {
        validateBenchConfig(groupedConfig({ ...flatBase, ...over }));
      } catch (e) {
        return e as StallscopeError;
      }
      throw new Error('not refused');
    };
    expect(refuse({ dataset: { name: 'random', inputLen: 4, outputLen: 4 } })).toMatchObject({
      field: 'accuracy.seedTtsEval',
      exitCode: 2,
    });
    expect(refuse({ seedTtsEval: { ...base.accuracy.seedTtsEval!, asrUrl: 'ftp://h' } }).field).toBe(
      'accuracy.seedTtsEval.asrUrl',
    );
    expect(refuse({ seedTtsEval: { ...base.accuracy.seedTtsEval!, asrConcurrency: 0 } }).field).toBe(
      'accuracy.seedTtsEval.asrConcurrency',
    );
    // Either a URL or the local server, never both nor neither; the local server needs a Python.
    const local = { ...base.accuracy.seedTtsEval!, asrUrl: undefined, localAsr: { python: 'python3' } };
    expect(() => validateBenchConfig({ ...base, accuracy: { seedTtsEval: local } })).not.toThrow();
    expect(refuse({ seedTtsEval: { ...local, asrUrl: 'http://h:1' } }).field).toBe('accuracy.seedTtsEval.asrUrl');
    expect(refuse({ seedTtsEval: { ...local, localAsr: undefined } }).field).toBe('accuracy.seedTtsEval.asrUrl');
    expect(refuse({ seedTtsEval: { ...local, localAsr: { python: '' } } }).field).toBe(
      'accuracy.seedTtsEval.localAsr.python',
    );
    expect(refuse({ seedTtsEval: { ...local, localAsr: { python: 'p', startTimeoutS: 0 } } }).field).toBe(
      'accuracy.seedTtsEval.localAsr.startTimeoutS',
    );
    expect(() => validateBenchConfig(base)).not.toThrow();
  });
});
