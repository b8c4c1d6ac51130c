/**
 * `--backend openai-realtime-tts` / `openai-realtime-duplex` through the
 * real engine against the reproduction server's `/v1/realtime`
 * (docs/design.md#realtime): a seeded run's result keys are what its turns
 * measured, a session holds one concurrency slot, a Code2Wav hang trips
 * fail-fast within the bound with every WebSocket closed, a stop rule stops
 * a realtime run, and duplex turns complete with an explicit commit and
 * with server VAD from the Seed-TTS prompt speech.
 */
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '#server/engine/engine.ts';
import { startReproServer } from '#server/repro/server.ts';
import type { EndedRecord } from '#server/engine/records/record.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { MODEL } from '#test/helpers/code2wav.ts';
import { fileURLToPath } from 'node:url';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** The server's view of the run's WebSockets: how many were opened, are open now, were open at once. */
function watchSockets(app: FastifyInstance) {
  const wss = (app as unknown as { websocketServer: { on(e: 'connection', f: (ws: WebSocket) => void): void } })
    .websocketServer;
  const seen = { opened: 0, closed: 0, open: 0, maxOpen: 0 };
  wss.on('connection', (ws) => {
    seen.opened++;
    seen.open++;
    seen.maxOpen = Math.max(seen.maxOpen, seen.open);
    ws.once('close', () => {
      seen.closed++;
      seen.open--;
    });
  });
  return seen;
}

async function repro(over: Parameters<typeof startReproServer>[0] = {}) {
  const target = await startReproServer({ tokenRate: 500, seed: 3, log: () => undefined, ...over });
  closers.push(() => target.close());
  await target.app.ready();
  return { target, sockets: watchSockets(target.app) };
}

const realtimeConfig = (url: string, over: Parameters<typeof testBenchConfig>[1] = {}) =>
  testBenchConfig(url, {
    backend: 'openai-realtime-tts',
    endpoint: '/v1/realtime',
    model: MODEL,
    percentileMetrics: ['ttft', 'e2el', 'audio_ttfp', 'audio_rtf'],
    metricPercentiles: [50, 99],
    ...over,
  });

const seedRoot = fileURLToPath(new URL('../../../fixtures/datasets/seed-tts', import.meta.url));
const ms = (s: number) => Math.round(s * 1e6) / 1e3;
const records = (t: Iterable<EndedRecord>) => [...t];

describe('openai-realtime-tts through the engine', () => {
  it('a seeded run of two sessions of two turns: result keys equal what the turns measured', async () => {
    const { target, sockets } = await repro();
    const config = realtimeConfig(target.url, {
      numPrompts: 4,
      turnsPerSession: 2,
      maxConcurrency: 2,
      // Upstream 2026-08-20's text turns, one WebSocket per session.
      extraBody: { save_duplex_request_metrics: true, realtime_tts_flow: 'turns' },
    });
    const out = await runBenchmark(config, { warmClient: false });
    expect(out.summary.verdict).toBe('passed');
    const rs = records(out.records);
    const res = out.result as Record<string, any>;
    // `completed` counts turns.
    expect(res.completed).toBe(4);
    expect(rs.map((r) => [r.realtimeSessionId, r.realtimeTurn])).toEqual([
      ['seed-tts-test-0', 0],
      ['seed-tts-test-0', 1],
      ['seed-tts-test-1', 0],
      ['seed-tts-test-1', 1],
    ]);
    // One WebSocket per session; both sessions ran at once (the slot is a session's, not a turn's).
    expect(sockets.opened).toBe(2);
    expect(sockets.maxOpen).toBe(2);
    await expect.poll(() => sockets.open).toBe(0);
    // vLLM's np.mean(audio_ttfps) * 1000.
    expect(res.mean_audio_ttfp_ms).toBe((rs.reduce((a, r) => a + r.audioTtfp, 0) / 4) * 1000);
    expect(res.total_output_tokens).toBe(rs.reduce((a, r) => a + r.outputTokens, 0));
    expect(res.total_audio_frames).toBe(rs.reduce((a, r) => a + r.realtimeAudioBytes! / 2, 0));
    for (const r of rs) {
      expect(r.audioTtfp).toBe(r.realtimeTtfpS);
      expect(r.ttft).toBe(r.realtimeTtftS);
      expect(r.audioRtf).toBe(r.realtimeGenerationS! / r.audioDuration);
    }
    const m = res.duplex_request_metrics as Record<string, any>[];
    expect(m.map((x) => x.response_id)).toEqual(rs.map((r) => r.realtimeResponseId));
    for (const [i, x] of m.entries()) {
      expect(x.ttft_ms).toBe(ms(rs[i].realtimeTtftS!));
      expect(x.ttfp_ms).toBe(ms(rs[i].realtimeTtfpS!));
      expect(x.audio_generation_ms).toBe(ms(rs[i].realtimeGenerationS!));
      expect(x.audio_duration_ms).toBe(ms(rs[i].realtimeAudioBytes! / 48000));
    }
    const s1 = (res.duplex_session_metrics as Record<string, any>[])[1];
    const [a, b] = [m[2].ttfp_ms as number, m[3].ttfp_ms as number];
    expect(s1).toMatchObject({ session_id: 'seed-tts-test-1', audio_turn_count: 2 });
    expect(s1.ttfp_ms).toEqual({
      count: 2,
      mean: Math.round(((a + b) / 2) * 1000) / 1000,
      p50: Math.min(a, b),
      p99: Math.max(a, b),
    });
  }, 30_000);

  it('the newest upstream flow (default): a seeded native session per turn, answered over streamed silence', async () => {
    const { target, sockets } = await repro();
    const config = realtimeConfig(target.url, {
      numPrompts: 4,
      turnsPerSession: 2,
      maxConcurrency: 2,
      extraBody: { save_duplex_request_metrics: true },
    });
    const out = await runBenchmark(config, { warmClient: false });
    expect(out.summary.verdict).toBe('passed');
    const rs = records(out.records);
    expect(out.result.completed).toBe(4);
    // Upstream's grouping stays (the session id names the request), but each utterance has its own WebSocket.
    expect(rs.map((r) => [r.realtimeSessionId, r.realtimeTurn])).toEqual([
      ['seed-tts-test-0', 0],
      ['seed-tts-test-0', 1],
      ['seed-tts-test-1', 0],
      ['seed-tts-test-1', 1],
    ]);
    expect(sockets.opened).toBe(4);
    expect(sockets.maxOpen).toBeLessThanOrEqual(2);
    await expect.poll(() => sockets.open).toBe(0);
    for (const r of rs) {
      // The seeded text is spoken back: the answer is the prompt's, not an empty or a previous one.
      expect(r.generatedText.length).toBeGreaterThan(0);
      expect(r.realtimeAudioBytes).toBeGreaterThan(0);
      // Timed from the first silent chunk's send; repro-server answers at the first audio unit.
      expect(r.realtimeTtfpS!).toBeGreaterThan(0);
      expect(r.realtimeTtfpS!).toBeLessThan(5);
    }
    expect(new Set(rs.map((r) => r.generatedText)).size).toBe(4);
  }, 30_000);

  it('the duplex_* keys are written for tts only when --extra-body asks (save_duplex_request_metrics)', async () => {
    const { target } = await repro();
    const out = await runBenchmark(realtimeConfig(target.url, { numPrompts: 2 }), { warmClient: false });
    expect(out.result.completed).toBe(2);
    expect(out.result).not.toHaveProperty('duplex_request_metrics');
  }, 30_000);

  it('a Code2Wav hang trips fail-fast within the bound, and the run ends with every WebSocket closed', async () => {
    // The first Code2Wav op hangs: no turn can complete before the trip, however the turns' ops interleave (with
    // after=3 a turn whose audio fitted in ops 1–2 completed first on a loaded machine: 5 of 6, not 6).
    const { target, sockets } = await repro({ faults: ['hift:block:after=1'], watchdogTimeoutS: 0 });
    const config = realtimeConfig(target.url, {
      numPrompts: 6,
      turnsPerSession: 2,
      maxConcurrency: 3,
      failFast: true,
      timeouts: { totalS: 20, idleS: 0.5 },
    });
    const t0 = performance.now();
    const out = await runBenchmark(config, { warmClient: false });
    const elapsedS = (performance.now() - t0) / 1000;
    expect(out.summary.breakerTripped).toBe(true);
    expect(out.summary.verdict).toBe('failed_closed');
    const c = out.summary.counts;
    expect(c.timedOut).toBeGreaterThanOrEqual(1);
    // The turns waiting behind a hung turn of their session are cancelled by the stop, not failed.
    expect([...out.statuses].filter((s) => s === 'failed')).toEqual([]);
    expect(c.timedOut + c.cancelledAfterTimeout).toBe(6);
    // Idle bound 0.5 s + the stop's sweep deadline, far below the 20 s total.
    expect(elapsedS).toBeLessThan(6);
    // Three sessions were open when the hang tripped the run: every one of them is closed.
    expect(sockets.opened).toBe(3);
    await expect.poll(() => sockets.closed).toBe(3);
    expect(sockets.open).toBe(0);
  }, 30_000);

  it('a stop rule stops a realtime run mid-turn', async () => {
    // The first Code2Wav op hangs: no turn can complete before the trip, however the turns' ops interleave (with
    // after=3 a turn whose audio fitted in ops 1–2 completed first on a loaded machine: 5 of 6, not 6).
    const { target, sockets } = await repro({ faults: ['hift:block:after=1'], watchdogTimeoutS: 0 });
    const config = realtimeConfig(target.url, {
      numPrompts: 4,
      turnsPerSession: 2,
      maxConcurrency: 1,
      timeouts: { totalS: 30 },
      stopOn: ['no_progress>=1s'],
    });
    const t0 = performance.now();
    const out = await runBenchmark(config, { warmClient: false });
    expect((performance.now() - t0) / 1000).toBeLessThan(10);
    expect(out.summary.stoppedBy?.rule).toBe('no_progress>=1s');
    expect(out.summary.verdict).toBe('failed_closed');
    expect(sockets.opened).toBe(1);
    await expect.poll(() => sockets.open).toBe(0);
  }, 30_000);
});

describe('openai-realtime-duplex through the engine', () => {
  const seedTts = { name: 'seed-tts' as const, path: seedRoot, locale: 'en', noOversample: false };
  for (const trigger of ['explicit', 'vad'] as const) {
    it(`speaks each Seed-TTS prompt WAV (24 kHz, 1 s silent tail) and completes its turn (${trigger})`, async () => {
      const { target } = await repro();
      const out = await runBenchmark(
        realtimeConfig(target.url, {
          backend: 'openai-realtime-duplex',
          dataset: seedTts,
          numPrompts: 2,
          maxConcurrency: 2,
          extraBody: { realtime_trigger: trigger },
          timeouts: { totalS: 10 },
        }),
        { warmClient: false },
      );
      expect(out.summary.verdict, records(out.records)[0].error).toBe('passed');
      const rs = records(out.records);
      expect(rs.map((r) => r.realtimeTrigger)).toEqual([trigger, trigger]);
      const m = out.result.duplex_request_metrics as Record<string, any>[];
      expect(m.map((x) => x.trigger)).toEqual([trigger, trigger]);
      expect(m[0].measurement_origin.ttfp).toBe('end of reference speech to first audio packet');
      // Timed from the end of the speech: server VAD answers only after 800 ms of the silent tail.
      if (trigger === 'vad') for (const r of rs) expect(r.audioTtfp).toBeGreaterThan(0.8);
    }, 30_000);
  }
});
