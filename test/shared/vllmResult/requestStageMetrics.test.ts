/**
 * `request_stage_metrics` as vLLM-Omni's newest client writes it (patch.py's
 * `benchmark()`, docs/design.md#request-stage-metrics): one entry per request
 * in request order, null where a request saw no stage metrics, placed after
 * the sample counts and before the duplex_* keys, only when some request has
 * a non-empty snapshot, with the engine's audio duration as a Python float.
 */
import { describe, expect, it } from 'vitest';
import { buildResultJson, type ResultJsonInput } from '#shared/vllmResult/resultJson.ts';
import { emptyCounts } from '#shared/requests/outcomes.ts';
import { pyJsonDumps } from '#shared/vllmResult/pyJson.ts';
import { resultFloatKindFor } from '#shared/vllmResult/floatKeys.ts';
import {
  compactStageSnapshot,
  mergeStageMetrics,
  requestStageMetrics,
  type RequestStageSnapshot,
  type StageSnapshotBuilder,
} from '#shared/vllmResult/requestStageMetrics.ts';

function input(snapshots: (RequestStageSnapshot | undefined)[], backendKeys: Record<string, unknown> = {}) {
  const records = snapshots.map((s) => ({
    success: true,
    error: '',
    ttft: 0.1,
    itl: [],
    latency: 1,
    outputTokens: 2,
    promptLen: 3,
    generatedText: 'x',
    audioTtfp: 0,
    audioDuration: 0,
    audioFrames: 0,
    audioRtf: 0,
    textLatency: 0.1,
    startTime: 0,
    ...(s ? { stageSnapshot: s } : {}),
  }));
  const base: ResultJsonInput = {
    date: '20260801-101500',
    backend: 'openai-chat-omni',
    label: null,
    modelId: 'm',
    numPrompts: records.length,
    requestRate: Infinity,
    burstiness: 1,
    maxConcurrency: 1,
    metrics: { completed: records.length, failed: 0, rtfx: 0, num_ttft_samples: records.length },
    detailed: false,
    records,
    statuses: records.map(() => 'completed'),
    counts: { ...emptyCounts(records.length), completed: records.length },
    failFast: { enabled: false, tripped: false, cause: null },
    verdict: 'passed',
    verdictReasons: [],
    backendKeys,
    requestStageMetrics: requestStageMetrics(records),
  };
  return base;
}

describe('request_stage_metrics', () => {
  const s0 = {
    '0': { num_tokens_out: 12, finish_reason: 'length' },
    '2': { audio_frames: 48_000, audio_duration_s: 2 },
  };

  it('one entry per request in order, null for one without, after the sample counts and before duplex_*', () => {
    const result = buildResultJson(
      input([s0, undefined, { '0': { num_tokens_out: 3 } }], { duplex_request_metrics: [] }),
    );
    expect(result.request_stage_metrics).toEqual([s0, null, { '0': { num_tokens_out: 3 } }]);
    const order = Object.keys(result);
    const at = order.indexOf('num_ttft_samples');
    expect(order.slice(at, at + 3)).toEqual(['num_ttft_samples', 'request_stage_metrics', 'duplex_request_metrics']);
  });

  it('writes the audio duration as a float and the counts as ints', () => {
    const result = buildResultJson(input([s0]));
    const text = pyJsonDumps(result, resultFloatKindFor(result));
    expect(text).toContain(
      '"request_stage_metrics": [{"0": {"num_tokens_out": 12, "finish_reason": "length"}, ' +
        '"2": {"audio_frames": 48000, "audio_duration_s": 2.0}}]',
    );
  });

  it('is not written when no request has a non-empty snapshot (any() of empty dicts and Nones is false)', () => {
    expect('request_stage_metrics' in buildResultJson(input([undefined, undefined]))).toBe(false);
    expect('request_stage_metrics' in buildResultJson(input([{}, undefined]))).toBe(false);
    // One request with fields writes every request's entry, the empty one as {}.
    expect(buildResultJson(input([{}, s0])).request_stage_metrics).toEqual([{}, s0]);
  });

  it('a stage keeps its first place when a later event replaces it; an empty map is no snapshot', () => {
    const b: StageSnapshotBuilder = new Map();
    expect(compactStageSnapshot(b)).toBeUndefined();
    mergeStageMetrics(b, {});
    expect(compactStageSnapshot(b)).toBeUndefined();
    mergeStageMetrics(b, { a: 'not yet', b: { num_tokens_out: 1 } });
    mergeStageMetrics(b, { a: { finish_reason: 'stop', vllm_itls_ms: [1, 2] } });
    const out = compactStageSnapshot(b)!;
    expect(Object.keys(out)).toEqual(['a', 'b']);
    expect(out).toEqual({ a: { finish_reason: 'stop' }, b: { num_tokens_out: 1 } });
  });
});
