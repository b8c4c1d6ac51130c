/**
 * Realtime and all-failed result keys as upstream writes them (docs/design.md#realtime):
 * the duplex_* keys after rtfx and the sample
 * counts (patch.py's result dict), each turn's entry with `utterance_id`
 * (null) and its ms as Python floats (`1600.0`), the session summaries'
 * statistics as floats; a run where nothing completed writes its audio
 * totals as the int `0` (upstream's `sum([])`).
 */
import { describe, expect, it } from 'vitest';
import { calculateMetrics } from '#shared/metrics/index.ts';
import { realtimeResultKeys, type RealtimeTurnTiming } from '#shared/metrics/realtime.ts';
import { buildResultJson, type ResultJsonInput } from '#shared/vllmResult/resultJson.ts';
import { pyJsonDumps } from '#shared/vllmResult/pyJson.ts';
import { resultFloatKindFor } from '#shared/vllmResult/floatKeys.ts';
import { newRecord, placeholderRecord } from '#server/engine/records/record.ts';

const turn = (i: number): RealtimeTurnTiming => ({
  sessionId: 'seed-tts-x-0',
  turn: i,
  responseId: `resp_${i}`,
  originTs: 0,
  firstTextTs: 0.25,
  firstAudioTs: 0.5,
  lastAudioTs: 1.5,
  // 1.6 s of 24 kHz PCM16: audio_duration_ms 1600, a whole number upstream writes as 1600.0.
  audioBytes: 1.6 * 24_000 * 2,
  doneTs: 2,
  outputTokens: 3,
});

function input(records: ReturnType<typeof newRecord>[], backendKeys: Record<string, unknown>): ResultJsonInput {
  const metrics = calculateMetrics(records, {
    durationS: 2,
    percentileMetrics: ['ttft', 'e2el', 'audio_ttfp'],
    metricPercentiles: [99],
  });
  return {
    date: '20260801-101500',
    backend: 'openai-realtime-tts',
    label: null,
    modelId: 'm',
    numPrompts: records.length,
    requestRate: Infinity,
    burstiness: 1,
    maxConcurrency: 1,
    metrics,
    detailed: false,
    records,
    statuses: records.map((r) => (r.success ? 'completed' : 'failed')),
    counts: {
      total: records.length,
      completed: metrics.completed,
      failed: metrics.failed,
      timedOut: 0,
      cancelledAfterTimeout: 0,
      cancelled: 0,
      errored: 0,
      unsent: 0,
    },
    failFast: { enabled: false, tripped: false, cause: null },
    verdict: 'passed',
    verdictReasons: [],
    backendKeys,
  };
}

describe('realtime result keys as upstream writes them', () => {
  const keys = realtimeResultKeys(
    [0, 1].map((i) => ({ timing: turn(i), success: true })),
    24_000,
  );

  it('puts duplex_* right after rtfx and the sample counts, before the statistics', () => {
    const r = newRecord(1, 0);
    Object.assign(r, { success: true, ttft: 0.25, latency: 2, audioTtfp: 0.5, outputTokens: 3, generatedText: 'x' });
    const result = buildResultJson(input([r], keys));
    const order = Object.keys(result);
    const at = order.indexOf('rtfx');
    expect(order.slice(at, at + 8)).toEqual([
      'rtfx',
      'num_ttft_samples',
      'num_tpot_samples',
      'num_itl_samples',
      'num_audio_ttfp_samples',
      'num_audio_rtf_samples',
      'duplex_request_metrics',
      'duplex_session_metrics',
    ]);
    expect(order.indexOf('mean_ttft_ms')).toBeGreaterThan(order.indexOf('duplex_session_metrics'));
  });

  it('writes utterance_id (null) after request_index, and ms and RTF as Python floats', () => {
    const m = (keys.duplex_request_metrics as Record<string, unknown>[])[0];
    expect(Object.keys(m).slice(0, 4)).toEqual(['session_id', 'request_index', 'utterance_id', 'response_id']);
    expect(m.utterance_id).toBeNull();
    const text = pyJsonDumps({ duplex_request_metrics: [m] }, resultFloatKindFor({ completed: 1 }));
    expect(text).toContain('"audio_duration_ms": 1600.0');
    expect(text).toContain('"audio_generation_ms": 1500.0');
    expect(text).toContain('"ttft_ms": 250.0');
    const s = pyJsonDumps(
      { duplex_session_metrics: keys.duplex_session_metrics },
      resultFloatKindFor({ completed: 1 }),
    );
    expect(s).toContain('"ttfp_ms": {"count": 2, "mean": 500.0, "p50": 500.0, "p99": 500.0}');
  });

  it('writes an all-failed run’s audio totals as the int 0, a run with completions as floats', () => {
    const failed = placeholderRecord(1, 'REQ_TIMEOUT', 'timed out');
    const none = buildResultJson(input([failed], {}));
    const text = pyJsonDumps(none, resultFloatKindFor(none));
    expect(text).toContain('"total_audio_duration_s": 0,');
    expect(text).toContain('"total_audio_frames": 0,');
    // Upstream's np.mean(e2els or 0): the selected e2el statistics are written, as 0.0.
    expect(text).toContain('"mean_e2el_ms": 0.0');
    expect(text).not.toContain('"mean_ttft_ms"');
    const ok = newRecord(1, 0);
    Object.assign(ok, { success: true, latency: 1, generatedText: 'x', outputTokens: 1 });
    const some = buildResultJson(input([ok], {}));
    expect(pyJsonDumps(some, resultFloatKindFor(some))).toContain('"total_audio_duration_s": 0.0,');
  });
});
