/**
 * A run's streams share the chunk shapes they learn: against a server that
 * writes vLLM's chunks with an id, a creation time and a prompt count of
 * each request's own, a run learns the role chunk's and the text chunk's
 * shapes once, not twice per request, and every record holds its own
 * request's values.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { ChunkShapes } from '#server/engine/transport/reading/chunkTemplate.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

let server: TestServer | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = null;
});

const idx = (id: string): number => Number(id.split('-').pop());

/** Request i's stream as vLLM-Omni writes it: its own id, creation time and prompt count in every chunk. */
function streamOf(i: number, tokens: number): string[] {
  const base = { id: `chatcmpl-${(0x9f3a + i * 7919).toString(16)}`, object: 'chat.completion.chunk' };
  const created = 1764662400 + i;
  const prompt = 100 + i * 3;
  const chunk = (delta: Record<string, string>, k: number): string =>
    `data: ${JSON.stringify({
      ...base,
      created,
      model: 'openbmb/MiniCPM-o-4_5',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      usage: { prompt_tokens: prompt, completion_tokens: k, total_tokens: prompt + k },
      modality: 'text',
    })}\n\n`;
  const out = [chunk({ role: 'assistant', content: '' }, 0)];
  for (let k = 1; k <= tokens; k++) out.push(chunk({ content: `r${i}w${k} ` }, k));
  const usage = { prompt_tokens: prompt, completion_tokens: tokens, total_tokens: prompt + tokens };
  out.push(`data: ${JSON.stringify({ ...base, created, model: 'm', choices: [], usage })}\n\n`, 'data: [DONE]\n\n');
  return out;
}

describe('a run shares the chunk shapes its streams learn', () => {
  it('learns two shapes in a 12-request run, and each record holds its own prompt count and text', async () => {
    server = await startSseServer((a) => ({ kind: 'raw', chunks: streamOf(idx(a.requestId), 6) }));
    const added = vi.spyOn(ChunkShapes.prototype, 'add');
    const config = testBenchConfig(server.url, {
      runId: 'shapes',
      dataset: { name: 'random', inputLen: 8, outputLen: 6 },
      numPrompts: 12,
      maxConcurrency: 3,
    });
    const out = await runBenchmark(config, { warmClient: false });
    expect([...out.statuses]).toEqual(Array(12).fill('completed'));
    // The role chunk's shape and the text chunk's, once each (a stream of its own would learn 24).
    expect(added).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 12; i++) {
      const r = out.records.at(i)!;
      expect(r.promptLen).toBe(100 + i * 3);
      expect(r.outputTokens).toBe(6);
      expect(r.generatedText).toBe(Array.from({ length: 6 }, (_, k) => `r${i}w${k + 1} `).join(''));
      expect(r.itl).toHaveLength(5);
    }
  });
});
