/**
 * The random dataset's bodies written from a template (docs/design.md#request-body): the same bytes the
 * object-and-JSON.stringify path gives, and the same prompt words as before the template existed.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadRandom } from '#server/engine/datasets/random.ts';
import type { SampleRequest } from '#server/engine/datasets/sample.ts';
import { buildRequestBody } from '#server/engine/backends/requestBody.ts';
import { testBenchConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';

const text = (b: string | Uint8Array): string => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'));
/** The same sample without its bytes: buildRequestBody takes the general path (an object, JSON.stringify). */
const general = (s: SampleRequest): SampleRequest => ({
  messages: s.messages,
  promptLen: s.promptLen,
  outputLen: s.outputLen,
  bodyDefaults: s.bodyDefaults,
});

const configs: Array<Partial<FlatBenchConfig>> = [
  {},
  { servedModelName: 'served', ignoreEos: true },
  { extraBody: { temperature: 0.5, modalities: ['text'], ignore_eos: false } },
  { printStage: true, percentileMetrics: ['ttft'] },
  { extraBody: { stream_options: { include_usage: false } }, apiKey: 'k' },
];

describe('request body from a template', () => {
  it('gives, for every sample and config, the bytes the general path gives', async () => {
    // rangeRatio 0.3: samples of several max_tokens (one template each) and prompt lengths.
    const d = loadRandom(40, 200, 48, 0.3, 11);
    expect(new Set(d.samples.map((s) => s.outputLen)).size).toBeGreaterThan(5);
    for (const over of configs) {
      const c = testBenchConfig('http://127.0.0.1:1', over);
      for (const s of d.samples) {
        const fast = await buildRequestBody(c, s);
        expect(fast).toBeInstanceOf(Uint8Array); // the template path, not the object
        expect(text(fast)).toBe(await buildRequestBody(c, general(s)));
      }
    }
  });

  it('falls back to the general path when --extra-body replaces the messages', async () => {
    const s = loadRandom(1, 8, 4, 0, 1).samples[0];
    const messages = [{ role: 'user', content: 'fixed' }];
    const body = await buildRequestBody(testBenchConfig('http://127.0.0.1:1', { extraBody: { messages } }), s);
    expect(typeof body).toBe('string');
    expect(JSON.parse(text(body)).messages).toEqual(messages);
  });

  it('keeps the prompt words a seed gave before the template (pinned bytes)', async () => {
    // The digest of these twelve bodies as the join-of-words code wrote them: a change of the word table,
    // the draw order or the generator's arithmetic changes every prompt of every seeded run.
    const d = loadRandom(6, 1024, 48, 0.3, 7);
    const h = createHash('sha256');
    for (const over of [
      {},
      { extraBody: { temperature: 0.5, modalities: ['text'] }, ignoreEos: true, servedModelName: 'srv' },
    ])
      for (const s of d.samples) {
        h.update(text(await buildRequestBody(testBenchConfig('http://x', over), s)));
        h.update('|');
      }
    expect(h.digest('hex')).toBe('59aa2d6294b9b4f279eb9462060475e46e10cfd0de0832f636e18acb9cfe8f8f');
  });
});
