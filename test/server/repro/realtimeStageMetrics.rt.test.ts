/**
 * The reproduction server's realtime `response.done` carries stage 0's engine
 * metrics as vLLM-Omni's server reports them (docs/design.md#realtime), so
 * upstream's newest client can take TPOT/ITL from them: `num_tokens_out`
 * equal to the usage and to the transcript deltas (one per thinker token),
 * one `vllm_itls_ms` entry per interval, `vllm_tpot_ms` their mean. Then a
 * native bench against it gets one TPOT sample per turn, from those ITLs.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startReproServer } from '#server/repro/server.ts';
import { MODEL } from '#test/helpers/code2wav.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

type Ev = { type: string; delta?: string; response?: { usage?: { output_tokens: number }; metadata?: any } };

/** One seeded native session (the upstream wire): returns its events up to response.done. */
async function nativeSession(url: string, text: string): Promise<Ev[]> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/realtime?duplex=1&model=${MODEL}&autostart=0`);
  const events: Ev[] = [];
  try {
    return await new Promise<Ev[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no response.done: ${events.map((e) => e.type)}`)), 20_000);
      ws.on('error', reject);
      ws.on('open', () =>
        ws.send(
          JSON.stringify({
            type: 'session.update',
            session: { model: MODEL, extra_body: { auto_response: true, duplex_initial_user_text: text } },
          }),
        ),
      );
      ws.on('message', (d) => {
        const e = JSON.parse(String(d)) as Ev;
        events.push(e);
        if (e.type === 'session.created')
          ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(6400).toString('base64') }));
        if (e.type === 'response.done') {
          clearTimeout(timer);
          resolve(events);
        }
      });
    });
  } finally {
    ws.terminate();
  }
}

describe('reproduction server: stage-0 engine metrics on response.done', () => {
  it('counts and times the thinker tokens the transcript carried; the native bench reads its TPOT/ITL there', async () => {
    const target = await startReproServer({ tokenRate: 200, log: () => undefined });
    try {
      const text = 'the quick brown fox jumps over the lazy dog';
      const events = await nativeSession(target.url, text);
      const done = events.at(-1)!.response!;
      const stage0 = done.metadata.stage_metrics['0'];
      const deltas = events.filter((e) => e.type.endsWith('transcript.delta')).length;
      expect(stage0.num_tokens_out).toBe(done.usage!.output_tokens);
      expect(stage0.num_tokens_out).toBe(deltas);
      expect(deltas).toBeGreaterThan(2);
      expect(stage0.vllm_itls_ms).toHaveLength(deltas - 1);
      for (const v of stage0.vllm_itls_ms) expect(v).toBeGreaterThanOrEqual(0);
      const mean = stage0.vllm_itls_ms.reduce((a: number, b: number) => a + b, 0) / (deltas - 1);
      expect(stage0.vllm_tpot_ms).toBeCloseTo(mean, 3);
      expect(stage0.vllm_ttft_ms).toBeGreaterThan(0);

      const out = await runBenchmark(
        testBenchConfig(target.url, {
          backend: 'openai-realtime-tts',
          endpoint: '/v1/realtime',
          model: MODEL,
          numPrompts: 2,
          maxConcurrency: 1,
          percentileMetrics: ['ttft', 'tpot', 'itl'],
          metricPercentiles: [99],
          timeouts: { totalS: 30 },
        }),
        { warmClient: false },
      );
      expect(out.result.completed).toBe(2);
      const rs = [...out.records];
      for (const r of rs) expect(r.itl.length).toBe(r.outputTokens - 1);
      expect(out.result.num_tpot_samples).toBe(2);
      expect(out.result.num_itl_samples).toBe(rs.reduce((n, r) => n + r.itl.length, 0));
    } finally {
      await target.close();
    }
  }, 60_000);
});
