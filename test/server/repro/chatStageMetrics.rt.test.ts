/**
 * The reproduction server's chat stream carries stage 0's engine token timing
 * when the request asks for stage metrics (docs/design.md#stage-0-token-timings):
 * from the chunk with the last text token on, `metrics.stage_metrics["0"]` has
 * `num_tokens_out` equal to the usage, one `vllm_itls_ms` entry per interval
 * between the thinker's tokens, `vllm_tpot_ms` their mean; nothing without the
 * flag. Then a bench through a proxy that delivers each answer in one write
 * (every client ITL 0, as under upstream's coalesced reads) takes the requests'
 * ITLs from those figures, and without the flag keeps the client's zeros.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import { MODEL } from '#test/helpers/code2wav.ts';
import { chatBody, post } from '#test/helpers/reproChat.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

const RATE = 50; // thinker tokens per second: 20 ms apart

let target: Awaited<ReturnType<typeof startReproServer>>;
beforeAll(async () => {
  target = await startReproServer({ tokenRate: RATE, log: () => undefined });
});
afterAll(async () => {
  await target.close();
});

/** Each event of one streamed answer, with the time its bytes arrived (ms). */
async function stream(body: unknown): Promise<Timed[]> {
  const res = await post(target.url, body);
  expect(res.status).toBe(200);
  const out: Timed[] = [];
  const dec = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const atMs = performance.now();
    buf += dec.decode(chunk, { stream: true });
    const parts = buf.split('\n\n');
    buf = parts.pop()!;
    for (const p of parts) if (p.startsWith('data: {')) out.push({ e: JSON.parse(p.slice(6)), atMs });
  }
  return out;
}

type Timed = { e: any; atMs: number };
const texts = (events: Timed[]) => events.filter(({ e }) => e.modality === 'text' && e.choices[0].delta.content);

/**
 * An HTTP proxy that reads the target's whole answer, then sends it in one write, and keeps each answer's
 * last stage 0 (null: none).
 */
async function oneWriteProxy(stage0s: unknown[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      void (async () => {
        const up = await post(target.url, Buffer.concat(parts).toString(), {
          'x-request-id': String(req.headers['x-request-id']),
        });
        const text = await up.text();
        let stage0: any = null;
        for (const m of text.split('\n\n'))
          if (m.startsWith('data: {')) stage0 = JSON.parse(m.slice(6)).metrics?.stage_metrics?.['0'] ?? stage0;
        stage0s.push(stage0);
        res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'text/plain' });
        res.end(text);
      })().catch((err: Error) => res.destroy(err));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('reproduction server: stage 0 token timing on the chat stream', () => {
  it('only when asked; counts as the usage, one interval per token, as the tokens were spaced', async () => {
    const body = chatBody({ max_tokens: 12, ignore_eos: true, modalities: ['text'], return_stage_metrics: true });
    const events = await stream(body);
    const text = texts(events);
    expect(text).toHaveLength(12);
    const last = text.at(-1)!.e;
    const stage0 = last.metrics.stage_metrics['0'];
    expect(stage0.num_tokens_out).toBe(last.usage.completion_tokens);
    expect(stage0.num_tokens_out).toBe(12);
    expect(stage0.vllm_itls_ms).toHaveLength(11);
    for (const v of stage0.vllm_itls_ms) expect(v).toBeGreaterThanOrEqual(0);
    const sum = stage0.vllm_itls_ms.reduce((a: number, b: number) => a + b, 0);
    expect(stage0.vllm_tpot_ms).toBeCloseTo(sum / 11, 3);
    expect(stage0.vllm_ttft_ms).toBeGreaterThan(0);
    // The thinker's first-to-last token span: at least the rate's spacing, and no longer than the client saw the
    // chunks arrive plus scheduling slack (under load the client's reads lag by hundreds of ms either way: an
    // absolute |sum - seen| bound of 150 ms failed with the suite running beside it).
    const seen = text.at(-1)!.atMs - text[0].atMs;
    expect(sum).toBeGreaterThan(10 * (1000 / RATE) * 0.8);
    expect(sum).toBeLessThan(seen + 400);
    // Before stage 0 finished: its count only.
    for (const { e } of text.slice(0, -1)) expect('vllm_itls_ms' in e.metrics.stage_metrics['0']).toBe(false);

    const plain = await stream(chatBody({ max_tokens: 12, ignore_eos: true, modalities: ['text'] }));
    expect(texts(plain)).toHaveLength(12);
    expect(plain.some(({ e }) => 'metrics' in e)).toBe(false);
  }, 30_000);

  it('a bench whose answers arrive in one read takes the ITLs from stage 0; unasked, the zeros stay', async () => {
    const stage0s: any[] = [];
    const proxy = await oneWriteProxy(stage0s);
    try {
      const config = (percentileMetrics: ('ttft' | 'tpot' | 'itl' | 'e2el')[]) =>
        testBenchConfig(proxy.url, {
          model: MODEL,
          dataset: { name: 'random', inputLen: 8, outputLen: 6 },
          ignoreEos: true,
          extraBody: { modalities: ['text'] },
          numPrompts: 2,
          maxConcurrency: 1,
          percentileMetrics,
          metricPercentiles: [99],
          timeouts: { totalS: 30 },
        });
      const out = await runBenchmark(config(['ttft', 'tpot', 'itl']), { warmClient: false });
      expect(out.result.completed).toBe(2);
      const rs = [...out.records];
      rs.forEach((r, i) => {
        expect(r.outputTokens).toBe(6);
        expect(stage0s[i].num_tokens_out).toBe(6);
        expect([...r.itl]).toEqual(stage0s[i].vllm_itls_ms.map((v: number) => v / 1000));
      });
      expect(out.result.num_tpot_samples).toBe(2);
      // Upstream's request_stage_metrics: stage 0's count and finish per request, in request order.
      expect(out.result.request_stage_metrics).toEqual([
        { '0': { num_tokens_out: 6, finish_reason: 'length' } },
        { '0': { num_tokens_out: 6, finish_reason: 'length' } },
      ]);

      stage0s.length = 0;
      const unasked = await runBenchmark(config(['ttft', 'e2el']), { warmClient: false });
      expect(stage0s).toEqual([null, null]);
      for (const r of unasked.records) expect([...r.itl]).toEqual([0, 0, 0, 0, 0]);
      expect('request_stage_metrics' in unasked.result).toBe(false);
    } finally {
      proxy.server.closeAllConnections();
      await new Promise((r) => proxy.server.close(r));
    }
  }, 60_000);
});
