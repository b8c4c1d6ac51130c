/**
 * The native realtime tts flow's TPOT/ITL from stage 0's engine metrics, as
 * vLLM-Omni's newest client takes them (docs/design.md#realtime): a real
 * WebSocket peer on 127.0.0.1 answers each utterance's session with one
 * transcript delta (so the client sees no token cadence of its own) and a
 * `response.done` whose stage 0 carries exact ITLs, only a TPOT, no timing,
 * or that has no stage 0. The run's TPOT/ITL keys, its `duplex_request_metrics` `tpot_ms`
 * and the session's `tpot_ms` summary come from those figures alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = null;
});

/** Each new session answers its first silent chunk with the next stage-0 snapshot (null: none). */
async function peer(stage0s: (object | null)[]): Promise<string> {
  server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  let sessions = 0;
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const send = (e: object) => ws.send(JSON.stringify(e));
      const stage0 = stage0s[sessions++ % stage0s.length];
      let answered = false;
      ws.on('message', (d) => {
        const e = JSON.parse(String(d)) as { type: string };
        if (e.type === 'session.update') send({ type: 'session.created', session: { id: `s${sessions}` } });
        if (e.type === 'input_audio_buffer.append' && !answered) {
          answered = true;
          const id = `r${sessions}`;
          const early = stage0 !== null && 'onCreated' in stage0;
          const created = early ? { metadata: { stage_metrics: { '0': stage0 } } } : {};
          send({ type: 'response.created', response: { id, status: 'in_progress', ...created } });
          send({ type: 'response.audio_transcript.delta', response_id: id, delta: 'one two three four' });
          send({ type: 'response.audio.delta', response_id: id, delta: Buffer.alloc(4800).toString('base64') });
          const metadata = stage0 && !early ? { stage_metrics: { '0': stage0 } } : {};
          send({ type: 'response.done', response: { id, status: 'completed', usage: { output_tokens: 4 }, metadata } });
        }
        if (e.type === 'session.close') ws.close();
      });
    }),
  );
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const config = (url: string) =>
  testBenchConfig(url, {
    backend: 'openai-realtime-tts',
    endpoint: '/v1/realtime',
    numPrompts: 5,
    maxConcurrency: 1,
    percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
    metricPercentiles: [50, 99],
    timeouts: { totalS: 20 },
    extraBody: { save_duplex_request_metrics: true },
  });

const exact = { num_tokens_out: 4, vllm_ttft_ms: 30, vllm_tpot_ms: 20, vllm_itls_ms: [10, 20, 30] };
const tpotOnly = { num_tokens_out: 4, vllm_ttft_ms: 30, vllm_tpot_ms: 40, vllm_itls_ms: [] };
const untimed = { num_tokens_out: 4 };
/** Carried by response.created only: upstream reads stage 0 on any event of the response. */
const onCreated = { num_tokens_out: 4, vllm_tpot_ms: 30, vllm_itls_ms: [30, 30, 30], onCreated: true };

describe('native realtime tts: TPOT/ITL from stage 0', () => {
  it('exact ITLs, a weighted TPOT, none, or no stage 0: the keys and duplex metrics upstream writes', async () => {
    const out = await runBenchmark(config(await peer([exact, tpotOnly, untimed, null, onCreated])), {
      warmClient: false,
    });
    const res = out.result;
    expect(res.completed).toBe(5);
    const [a, b, c, d, early] = [...out.records];
    // Exact: the engine's ITLs, in seconds; the record's text latency is TTFT + their sum.
    expect([...a.itl]).toEqual([0.01, 0.02, 0.03]);
    expect(a.textLatency).toBeCloseTo(a.ttft + 0.06, 12);
    // TPOT only: no ITLs; the text latency projects 40 ms onto the 3 intervals.
    expect([...b.itl]).toEqual([]);
    expect(b.textLatency).toBeCloseTo(b.ttft + 0.12, 12);
    // No timing: none, though the client saw text and 4 tokens.
    expect([...c.itl]).toEqual([]);
    expect(c.textLatency).toBe(c.ttft);
    expect(c.outputTokens).toBe(4);
    expect([...d.itl]).toEqual([]);
    expect([...early.itl]).toEqual([0.03, 0.03, 0.03]);

    expect(res.num_itl_samples).toBe(6);
    expect(res.mean_itl_ms).toBeCloseTo((10 + 20 + 30 + 90) / 6, 9);
    expect(res.num_tpot_samples).toBe(3);
    expect(res.mean_tpot_ms).toBeCloseTo((20 + 40 + 30) / 3, 9);
    expect(res.median_tpot_ms).toBeCloseTo(30, 9);

    const entries = res.duplex_request_metrics as Record<string, unknown>[];
    expect(entries.map((e) => e.tpot_ms)).toEqual([20, 40, null, undefined, 30]);
    // A response without stage 0 has neither the key nor its origin.
    expect('tpot_ms' in entries[3]).toBe(false);
    expect('tpot' in (entries[3].measurement_origin as object)).toBe(false);
    for (const e of [...entries.slice(0, 3), entries[4]]) {
      expect((e.measurement_origin as Record<string, string>).tpot).toBe('Stage-0 engine mean time per output token');
      // Upstream's order: the response's request metrics (tpot_ms last), then the RTF the benchmark adds.
      expect(Object.keys(e).slice(-3)).toEqual(['audio_duration_ms', 'tpot_ms', 'rtf']);
    }
    const sessions = res.duplex_session_metrics as Record<string, unknown>[];
    expect(sessions.map((s) => s.tpot_ms)).toEqual([
      { count: 1, mean: 20, p50: 20, p99: 20 },
      { count: 1, mean: 40, p50: 40, p99: 40 },
      undefined,
      undefined,
      { count: 1, mean: 30, p50: 30, p99: 30 },
    ]);
    expect(Object.keys(sessions[0]).at(-1)).toBe('tpot_ms');
  }, 40_000);
});
