import { describe, expect, it } from 'vitest';
import { groupedConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { loadSeedTts, SEED_TTS_DEFAULT_OMNI_SYSTEM_PROMPT } from '#server/engine/datasets/seedTts.ts';
import { loadTrace } from '#server/engine/datasets/trace.ts';
import { loadRandom } from '#server/engine/datasets/random.ts';
import { buildHeaders, buildRequestBody } from '#server/engine/backends/requestBody.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { StallscopeError } from '#shared/errors.ts';

/** A body as text (the random dataset's are bytes). */
const bodyText = (b: string | Uint8Array): string => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'));

const fixtures = fileURLToPath(new URL('../../../fixtures/datasets/', import.meta.url));
const seedRoot = `${fixtures}seed-tts`;

const config = (over: Partial<FlatBenchConfig> = {}): RunConfig =>
  groupedConfig({
    runId: 'run1',
    baseUrl: 'http://127.0.0.1:1',
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'openbmb/MiniCPM-o-4_5',
    dataset: { name: 'seed-tts', path: seedRoot, locale: 'en', noOversample: true },
    numPrompts: 10,
    maxConcurrency: 2,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['ttft'],
    metricPercentiles: [99],
    timeouts: {},
    failFast: false,
    thresholds: [],
    ...over,
  });

describe('seed-tts dataset', () => {
  it('reads meta.lst, skips the missing wav and malformed rows with warnings, no oversampling', () => {
    const d = loadSeedTts({ root: seedRoot, locale: 'en', numPrompts: 2000, seed: 0, noOversample: true });
    expect(d.samples).toHaveLength(4);
    expect(d.warnings.join('\n')).toMatch(/missing/);
    expect(d.warnings.join('\n')).toMatch(/malformed/);
  });

  it('oversamples to num-prompts unless --no-oversample', () => {
    const d = loadSeedTts({ root: seedRoot, locale: 'en', numPrompts: 7, seed: 0, noOversample: false });
    expect(d.samples).toHaveLength(7);
  });

  it("the row order and the oversampled rows are CPython's for the same seed (as vLLM-Omni picks them)", () => {
    // python3: r = rows_en_1_to_5; random.Random(0).shuffle(r) → en_3 en_2 en_1 en_5 en_4 (en_5's wav is missing);
    // random.seed(0); [random.choice(4 rows) for _ in range(3)] → indices 3 3 0 (vLLM's maybe_oversample_requests).
    const d = loadSeedTts({ root: seedRoot, locale: 'en', numPrompts: 7, seed: 0, noOversample: false });
    const [s3, s2, s1, s4] = [
      'A stitch in time saves nine.',
      'She sells sea shells by the sea shore.',
      'The quick brown fox jumps over the lazy dog.',
      'Actions speak louder than words.',
    ];
    expect(d.samples.map((s) => s.rowBody!.ref_text)).toEqual([s3, s2, s1, s4, s4, s4, s3]);
  });

  it('a seeded shuffle: same seed same order, another seed another order', () => {
    const order = (seed: number): string[] =>
      loadSeedTts({ root: seedRoot, locale: 'en', numPrompts: 4, seed, noOversample: true }).samples.map((s) =>
        String(s.rowBody!.ref_text),
      );
    expect(order(1)).toEqual(order(1));
    const orders = new Set([0, 1, 2, 3, 4, 5].map((s) => order(s).join('|')));
    expect(orders.size).toBeGreaterThan(1);
    const unshuffled = loadSeedTts({
      root: seedRoot,
      locale: 'en',
      numPrompts: 4,
      seed: 0,
      noOversample: true,
      disableShuffle: true,
    });
    expect(unshuffled.samples[0].rowBody!.ref_text).toBe('The quick brown fox jumps over the lazy dog.');
  });

  it('builds the MiniCPM-o Seed-TTS body: system + user text, ref_audio data URI, extra_body merged at the top level', async () => {
    const d = loadSeedTts({
      root: seedRoot,
      locale: 'en',
      numPrompts: 1,
      seed: 0,
      noOversample: true,
      disableShuffle: true,
    });
    const c = config({ extraBody: { chat_template_kwargs: { enable_thinking: false }, temperature: 0.5 } });
    const body = JSON.parse(bodyText(await buildRequestBody(c, d.samples[0])));
    expect(body.model).toBe('openbmb/MiniCPM-o-4_5');
    expect(body.messages[0]).toEqual({
      role: 'system',
      content: [{ type: 'text', text: SEED_TTS_DEFAULT_OMNI_SYSTEM_PROMPT }],
    });
    expect(body.messages[1].content[0].text).toBe('One by one, the campfires were extinguished.');
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true, continuous_usage_stats: true });
    expect(body.temperature).toBe(0.5);
    expect(body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(body.ref_audio).toMatch(/^data:audio\/wav;base64,UklGR/);
    expect(body.ref_text).toBe('The quick brown fox jumps over the lazy dog.');
    expect(body.task_type).toBe('Base');
    expect(body.language).toBe('English');
    expect(body.max_new_tokens).toBe(2048);
    expect(body.max_tokens).toBe(2048);
    expect(body.modalities).toEqual(['text', 'audio']);
    const textOnly = JSON.parse(
      bodyText(await buildRequestBody(config({ extraBody: { modalities: ['text'] } }), d.samples[0])),
    );
    expect(textOnly.modalities).toEqual(['text']);
  });

  it("asks for stage metrics as vLLM-Omni's main() does: tpot or itl on the omni backend, --print-stage, image modalities; an explicit value wins", async () => {
    const d = loadSeedTts({
      root: seedRoot,
      locale: 'en',
      numPrompts: 1,
      seed: 0,
      noOversample: true,
      disableShuffle: true,
    });
    const asks = async (over: Partial<FlatBenchConfig>) =>
      JSON.parse(bodyText(await buildRequestBody(config(over), d.samples[0]))).return_stage_metrics;
    expect(await asks({ percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'] })).toBe(true);
    expect(await asks({ percentileMetrics: ['ttft', 'itl'] })).toBe(true);
    expect(await asks({ percentileMetrics: ['ttft', 'e2el'] })).toBeUndefined();
    expect(await asks({ percentileMetrics: ['ttft', 'tpot'], backend: 'openai-chat' })).toBeUndefined();
    expect(await asks({ percentileMetrics: ['ttft'], printStage: true })).toBe(true);
    expect(await asks({ percentileMetrics: ['ttft'], extraBody: { modalities: ['text', 'image'] } })).toBe(true);
    // Image modalities ask only on openai-chat-omni (upstream's should_request_stage_metrics).
    const image: Partial<FlatBenchConfig> = {
      percentileMetrics: ['ttft'],
      extraBody: { modalities: ['text', 'image'] },
    };
    expect(await asks({ ...image, backend: 'openai-chat' })).toBeUndefined();
    expect(await asks({ ...image, backend: 'openai-chat', printStage: true })).toBe(true);
    expect(await asks({ percentileMetrics: ['tpot'], extraBody: { return_stage_metrics: false } })).toBe(false);
  });

  it('--ignore-eos adds ignore_eos: true before the extra body is merged (so --extra-body can still override it)', async () => {
    const d = loadSeedTts({
      root: seedRoot,
      locale: 'en',
      numPrompts: 1,
      seed: 0,
      noOversample: true,
      disableShuffle: true,
    });
    const eos = async (over: Partial<FlatBenchConfig>) =>
      JSON.parse(bodyText(await buildRequestBody(config(over), d.samples[0]))).ignore_eos;
    expect(await eos({})).toBeUndefined();
    expect(await eos({ ignoreEos: true })).toBe(true);
    expect(await eos({ ignoreEos: true, extraBody: { ignore_eos: false } })).toBe(false);
  });

  it('--seed-tts-file-ref-audio sends ref_audio as a file:// URI of the prompt wav, first of the row keys, without reading the wav', async () => {
    const d = loadSeedTts({
      root: seedRoot,
      locale: 'en',
      numPrompts: 1,
      seed: 0,
      noOversample: true,
      disableShuffle: true,
      fileRefAudio: true,
    });
    expect(d.samples[0].loadRowBody).toBeUndefined();
    const body = JSON.parse(bodyText(await buildRequestBody(config(), d.samples[0])));
    expect(body.ref_audio).toBe(pathToFileURL(join(seedRoot, 'en', 'prompt-wavs', 'en_1.wav')).href);
    expect(body.ref_audio).toMatch(/^file:\/\/\/.*\/en\/prompt-wavs\/en_1\.wav$/);
    const keys = Object.keys(body);
    expect(keys.slice(keys.indexOf('ref_audio'), keys.indexOf('ref_audio') + 5)).toEqual([
      'ref_audio',
      'ref_text',
      'task_type',
      'language',
      'max_new_tokens',
    ]);
  });

  it('zh rows get language Chinese', () => {
    const d = loadSeedTts({ root: seedRoot, locale: 'zh', numPrompts: 5, seed: 0, noOversample: true });
    expect(d.samples).toHaveLength(1);
    expect(d.samples[0].rowBody!.language).toBe('Chinese');
  });

  it('an unreadable dataset is a config error', () => {
    expect(() =>
      loadSeedTts({ root: `${fixtures}nope`, locale: 'en', numPrompts: 1, seed: 0, noOversample: true }),
    ).toThrow(StallscopeError);
  });
});

describe('trace and random datasets', () => {
  it('trace: timestamps, prompts or messages, output lengths, body keys', () => {
    const d = loadTrace(`${fixtures}trace.jsonl`, 100);
    expect(d.samples.map((s) => s.timestamp)).toEqual([0, 0.05, 0.1]);
    expect(d.samples[2].outputLen).toBe(4);
    expect(d.samples[2].rowBody).toEqual({ modalities: ['text'] });
    expect(loadTrace(`${fixtures}trace.jsonl`, 2).samples).toHaveLength(2);
  });

  it('random: seeded prompts of the requested length; ignore_eos by default', async () => {
    const a = loadRandom(3, 16, 8, 0, 5);
    const b = loadRandom(3, 16, 8, 0, 5);
    expect(a).toEqual(b);
    expect(a.samples[0].promptLen).toBe(16);
    const body = JSON.parse(bodyText(await buildRequestBody(config(), a.samples[0])));
    expect(body.max_tokens).toBe(8);
    expect(body.ignore_eos).toBe(true);
    expect(body.messages[0].content[0].text.split(' ')).toHaveLength(16);
    // The same seed gives the same words on every machine and in every version (the prompts written before the
    // word table was written in 32-bit stores, byte for byte); the longest word, "government", is among them.
    const text = (i: number): string => Buffer.from(a.samples[i].promptBytes!()).toString('latin1');
    expect(text(0)).toBe('place phase worker way audio wave thread fact place metric fact week result work eye life');
    expect(text(1)).toBe(
      'problem hand worker stage group audio problem signal model fact government latency voice person signal life',
    );
  });

  it('headers: bearer key, custom headers, x-request-id last', () => {
    const h = buildHeaders(config({ apiKey: 'k', headers: { 'X-Request-Id': 'spoof', 'X-Build': '42' } }), 'run1-3');
    expect(h).toEqual({
      'content-type': 'application/json',
      authorization: 'Bearer k',
      'x-build': '42',
      'x-request-id': 'run1-3',
    });
    expect(buildHeaders(config(), 'a').authorization).toBeUndefined();
  });
});
