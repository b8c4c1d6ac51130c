/**
 * `stage0TokenTimings` is vLLM-Omni's `_apply_stage0_token_timings` (patch.py, the newest stored version): the cases
 * upstream's own tests of it pin (tests/benchmarks/test_patch.py), plus the exact-ITL path and each refusal.
 */
import { describe, expect, it } from 'vitest';
import { stage0TokenTimings } from '#shared/metrics/stageTiming.ts';
import { requestTpot } from '#shared/metrics/calculate.ts';

const stage = (outputTokenCount: number, tpotMs: number, itlsMs: number[] = []) => ({
  outputTokenCount,
  tpotMs,
  itlsMs,
});

describe('stage-0 token timings (upstream _apply_stage0_token_timings)', () => {
  it('exact ITLs: one per interval of every response with more than one token, in seconds', () => {
    const t = stage0TokenTimings(0.1, [stage(3, 10, [10, 10]), stage(1, 0), stage(3, 10, [12, 8])], 7);
    expect(t).toEqual({
      itl: [0.01, 0.01, 0.012, 0.008],
      textLatency: 0.1 + 0.01 + 0.01 + 0.012 + 0.008,
      measured: true,
    });
  });

  it('incomplete ITLs: TPOT weighted by intervals, projected onto the tokens (upstream test: 20 ms)', () => {
    const t = stage0TokenTimings(0.1, [stage(3, 10), stage(2, 40)], 5);
    expect(t.itl).toEqual([]);
    expect(t.measured).toBe(true);
    expect((t.textLatency - 0.1) / 4).toBeCloseTo(0.02, 12);
  });

  it('zero ITLs fall back to a positive TPOT (upstream test: 25 ms)', () => {
    const t = stage0TokenTimings(0.1, [stage(3, 25, [0, 0])], 3);
    expect(t.itl).toEqual([]);
    expect((t.textLatency - 0.1) / 2).toBeCloseTo(0.025, 12);
  });

  it('a token count without timing measures nothing (upstream test)', () => {
    expect(stage0TokenTimings(0.1, [stage(3, 0)], 3)).toEqual({ itl: [], textLatency: 0.1, measured: false });
  });

  it('refuses a response without stage 0, a count that is not the request’s, and one-token answers', () => {
    const none = { itl: [], textLatency: 0.1, measured: false };
    expect(stage0TokenTimings(0.1, [stage(3, 10, [10, 10]), null], 3)).toEqual(none);
    expect(stage0TokenTimings(0.1, [stage(3, 10, [10, 10])], 4)).toEqual(none);
    expect(stage0TokenTimings(0.1, [stage(1, 10)], 1)).toEqual(none);
    expect(stage0TokenTimings(0.1, [], 0)).toEqual(none);
    expect(stage0TokenTimings(0.1, [stage(-1, 10), stage(4, 10)], 3)).toEqual(none);
  });

  it('calculate_metrics then reads the TPOT it carries: mean ITL, or the projected text latency', () => {
    const base = { success: true, ttft: 0.1, latency: 1, outputTokens: 5, promptLen: 1, generatedText: 'x' };
    const rec = (t: { itl: number[]; textLatency: number }) =>
      ({ ...base, ...t, audioTtfp: 0, audioDuration: 0, audioFrames: 0, audioRtf: 0, startTime: 0 }) as const;
    expect(requestTpot(rec(stage0TokenTimings(0.1, [stage(3, 10), stage(2, 40)], 5)), 5)).toBeCloseTo(0.02, 12);
    expect(requestTpot(rec(stage0TokenTimings(0.1, [stage(5, 99, [1, 2, 3, 6])], 5)), 5)).toBeCloseTo(0.003, 12);
    expect(requestTpot(rec(stage0TokenTimings(0.1, [stage(5, 0)], 5)), 5)).toBeNull();
  });
});
