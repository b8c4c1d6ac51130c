/**
 * Realtime turns against the reproduction server's /v1/realtime: sessions
 * of several turns complete with metrics computed from the turns' receive
 * times exactly as vLLM-Omni's duplex client computes them; a Code2Wav hang
 * times the turn out within its bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import { realtimeResultKeys } from '#shared/metrics/realtime.ts';
import { realtimeRun } from '#test/helpers/realtimeTurns.ts';

describe('realtime turns against the reproduction server', () => {
  let target: Awaited<ReturnType<typeof startReproServer>>;
  beforeAll(async () => {
    target = await startReproServer({ tokenRate: 500, seed: 7, log: () => undefined });
  });
  afterAll(() => target.close());

  it('runs two sessions of two turns; record fields and duplex_* keys equal the hand-computed values', async () => {
    const run = realtimeRun(target.url);
    const texts = ['one two three four', 'five six seven eight nine', 'alpha beta gamma delta', 'a b c d e f'];
    const outs = await Promise.all(texts.map((t, i) => run.turn(i, t, 4, 2)));
    for (const [i, o] of outs.entries()) {
      expect(o.result, `turn ${i}: ${o.record.error}`).toEqual({ type: 'ok' });
      const t = o.timing!;
      // The thinker speaks the prompt's words back: the transcript is the prompt.
      expect(o.record.generatedText).toBe(texts[i]);
      expect(o.record.outputTokens).toBe(texts[i].split(' ').length < 4 ? 4 : texts[i].split(' ').length);
      expect(o.record.ttft).toBeCloseTo(t.firstTextTs! - t.originTs, 9);
      expect(o.record.audioTtfp).toBeCloseTo(t.firstAudioTs! - t.originTs, 9);
      expect(o.record.audioDuration).toBe(t.audioBytes / 2 / 24000);
      expect(o.record.audioRtf).toBeCloseTo((t.lastAudioTs! - t.originTs) / o.record.audioDuration, 9);
      expect(o.record.latency).toBeCloseTo(t.doneTs! - t.originTs, 9);
      expect(t.sessionId).toBe(`seed-tts-t-${Math.floor(i / 2)}`);
      expect(t.turn).toBe(i % 2);
    }
    const keys = realtimeResultKeys(
      outs.map((o) => ({ timing: o.timing, success: o.record.success })),
      24000,
    ) as {
      duplex_request_metrics: Record<string, any>[];
      duplex_session_metrics: Record<string, any>[];
    };
    expect(keys.duplex_request_metrics).toHaveLength(4);
    const ms = (s: number) => Math.round(s * 1e6) / 1e3;
    for (const [i, m] of keys.duplex_request_metrics.entries()) {
      const t = outs[i].timing!;
      expect(m.ttft_ms).toBe(ms(t.firstTextTs! - t.originTs));
      expect(m.ttfp_ms).toBe(ms(t.firstAudioTs! - t.originTs));
      expect(m.audio_duration_ms).toBe(ms(t.audioBytes / 48000));
      // As vLLM-Omni's compute_audio_rtf(generation_ms / 1000, duration_ms / 1000), rounded to 6 digits.
      expect(m.rtf).toBe(Math.round((m.audio_generation_ms / 1000 / (m.audio_duration_ms / 1000)) * 1e6) / 1e6);
    }
    const s0 = keys.duplex_session_metrics[0];
    const [a, b] = keys.duplex_request_metrics.slice(0, 2).map((m) => m.ttft_ms as number);
    expect(s0).toMatchObject({ session_id: 'seed-tts-t-0', audio_turn_count: 2 });
    // Nearest rank over two values: p50 is the smaller, p99 the larger; the mean rounded to 3 digits.
    expect(s0.ttft_ms).toEqual({
      count: 2,
      mean: Math.round(((a + b) / 2) * 1000) / 1000,
      p50: Math.min(a, b),
      p99: Math.max(a, b),
    });
    // Each session closed its socket after its last turn.
    await expect.poll(() => run.sockets().size).toBe(0);
  });

  it('a turn whose audio never arrives fails with the server error verbatim', async () => {
    const run = realtimeRun(target.url);
    const o = await run.turn(0, '', 1, 1, { model: 'not-served' });
    expect(o.result).toEqual({ type: 'failed' });
    expect(o.record.error).toBe('The model `not-served` does not exist.');
  });
});

describe('a Code2Wav hang over a realtime session', () => {
  it('times the turn out (idle) within the bound, and the later turn of its session fails without sending', async () => {
    const target = await startReproServer({
      tokenRate: 500,
      faults: ['hift:block:after=2'],
      log: () => undefined,
      watchdogTimeoutS: 0,
    });
    try {
      const run = realtimeRun(target.url, { totalS: 5, idleS: 0.5 });
      const t0 = performance.now();
      const first = await run.turn(0, 'one two three four five six seven eight', 2, 2);
      const elapsed = (performance.now() - t0) / 1000;
      expect(first.result).toMatchObject({ type: 'timeout', kind: 'idle' });
      expect(first.record.errorCode).toBe('REQ_TIMEOUT');
      expect(first.timeouts).toEqual(['idle']);
      expect(elapsed).toBeLessThan(3);
      const second = await run.turn(1, 'more words', 2, 2);
      expect(second.result).toEqual({ type: 'failed' });
      expect(second.record.errorCode).toBe('REQ_WS_SESSION_ENDED');
      await expect.poll(() => run.sockets().size).toBe(0);
    } finally {
      await target.close();
    }
  });
});
