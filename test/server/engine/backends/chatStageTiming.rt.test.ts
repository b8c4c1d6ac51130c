/**
 * openai-chat-omni's TPOT/ITL from stage 0's engine metrics when the client's own receive times give no positive
 * interval, as vLLM-Omni's newest chat client does (`_apply_chat_stage0_token_timings`, docs/design.md#stage-0-token-timings).
 * A real HTTP peer on 127.0.0.1 answers each request with four text tokens in one write (so every client ITL is
 * 0) and a last text chunk whose `metrics.stage_metrics["0"]` carries exact ITLs, a TPOT only, no timing, another
 * token count, or nothing; one answer spaces its tokens out so the client measures them itself.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { DONE, roleEvent, sse, usageEvent } from '#test/helpers/sse.ts';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = null;
});

const base = { id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 0, model: 'm' };

/** A text chunk with cumulative usage; `stage0` (when given) rides on it as the server's metrics. */
function text(n: number, stage0?: object): string {
  return sse({
    ...base,
    choices: [{ index: 0, delta: { content: `w${n} ` }, logprobs: null, finish_reason: null }],
    usage: { prompt_tokens: 8, completion_tokens: n, total_tokens: 8 + n },
    modality: 'text',
    ...(stage0 ? { metrics: { num_tokens_out: n, stage_metrics: { '0': stage0 } } } : {}),
  });
}

interface Answer {
  stage0: object | null;
  /** Milliseconds between the text chunks (0: the whole stream in one write). */
  gapMs?: number;
}

/** Arrival n gets answers[n]; the request bodies are kept. */
async function peer(answers: Answer[], bodies: Record<string, unknown>[]): Promise<string> {
  const timers = new Set<NodeJS.Timeout>();
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const a = answers[bodies.length % answers.length];
      bodies.push(JSON.parse(raw) as Record<string, unknown>);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = [roleEvent(8), text(1), text(2), text(3), text(4, a.stage0 ?? undefined), usageEvent(4, 8), DONE];
      if (!a.gapMs) return void res.end(events.join(''));
      let i = 0;
      const next = (): void => {
        res.write(events[i++]);
        if (i === events.length) return void res.end();
        // Gaps before text chunks 2, 3 and 4 only: three client-measured intervals.
        const t = setTimeout(() => (timers.delete(t), next()), i >= 2 && i <= 4 ? a.gapMs : 0);
        timers.add(t);
      };
      next();
    });
  });
  server.on('close', () => timers.forEach(clearTimeout));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const config = (url: string, numPrompts: number, backend: 'openai-chat-omni' | 'openai-chat' = 'openai-chat-omni') =>
  testBenchConfig(url, {
    backend,
    numPrompts,
    maxConcurrency: 1,
    percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
    metricPercentiles: [50, 99],
    timeouts: { totalS: 20 },
  });

const exact = { stage_id: 0, num_tokens_out: 4, vllm_tpot_ms: 20, vllm_itls_ms: [10, 20, 30] };
const tpotOnly = { stage_id: 0, num_tokens_out: 4, vllm_tpot_ms: 40 };
const untimed = { stage_id: 0, num_tokens_out: 4 };
const otherCount = { stage_id: 0, num_tokens_out: 3, vllm_tpot_ms: 25, vllm_itls_ms: [25, 25] };

describe('openai-chat-omni: TPOT/ITL from stage 0 when the client measured no interval', () => {
  it('exact ITLs, a TPOT only, no timing, another count, no stage 0: the records and keys upstream gets', async () => {
    const bodies: Record<string, unknown>[] = [];
    const answers = [
      { stage0: exact },
      { stage0: tpotOnly },
      { stage0: untimed },
      { stage0: otherCount },
      { stage0: null },
    ];
    const out = await runBenchmark(config(await peer(answers, bodies), 5), { warmClient: false });
    const res = out.result;
    expect(res.completed).toBe(5);
    // Asked for, as upstream's should_request_stage_metrics does when tpot or itl is a percentile metric.
    expect(bodies.map((b) => b.return_stage_metrics)).toEqual([true, true, true, true, true]);
    const [a, b, c, d, e] = [...out.records];
    for (const r of [a, b, c, d, e]) expect(r.outputTokens).toBe(4);
    // Exact: the engine's ITLs in seconds replace the client's zeros; text latency = TTFT + their sum.
    expect([...a.itl]).toEqual([0.01, 0.02, 0.03]);
    expect(a.textLatency).toBeCloseTo(a.ttft + 0.06, 12);
    // TPOT only: no ITLs; the text latency projects 40 ms onto the 3 intervals.
    expect([...b.itl]).toEqual([]);
    expect(b.textLatency).toBeCloseTo(b.ttft + 0.12, 12);
    // Stage 0 with the request's count but no timing: upstream clears the zeros and measures nothing.
    expect([...c.itl]).toEqual([]);
    expect(c.textLatency).toBe(c.ttft);
    // Another token count, or no stage 0: the client-side rule stays (three zero intervals).
    expect([...d.itl]).toEqual([0, 0, 0]);
    expect([...e.itl]).toEqual([0, 0, 0]);
    expect(e.textLatency).toBe(e.ttft);

    expect(res.num_itl_samples).toBe(9);
    expect(res.mean_itl_ms).toBeCloseTo(60 / 9, 9);
    expect(res.num_tpot_samples).toBe(2);
    expect(res.mean_tpot_ms).toBeCloseTo(30, 9);
    expect(res.median_tpot_ms).toBeCloseTo(30, 9);
  }, 40_000);

  it('client-measured intervals win over stage 0, and openai-chat reads no stage 0', async () => {
    const answers = [{ stage0: exact, gapMs: 40 }, { stage0: exact }];
    const out = await runBenchmark(config(await peer(answers, []), 2), { warmClient: false });
    const [spaced, oneRead] = [...out.records];
    expect(spaced.itl).toHaveLength(3);
    // Timer gaps of 40 ms: each interval is the client's own, never the engine's 10/20/30 ms.
    for (const v of spaced.itl) expect(v).toBeGreaterThan(0.035);
    // The same stage 0 on a stream read at once: the engine's.
    expect([...oneRead.itl]).toEqual([0.01, 0.02, 0.03]);
    server!.closeAllConnections();
    await new Promise((r) => server!.close(r));
    server = null;

    const plain = await runBenchmark(config(await peer([{ stage0: exact }], []), 1, 'openai-chat'), {
      warmClient: false,
    });
    expect([...[...plain.records][0].itl]).toEqual([0, 0, 0]);
  }, 40_000);
});
