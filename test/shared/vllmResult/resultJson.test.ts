import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StallscopeError } from '#shared/errors.ts';
import { calculateMetrics } from '#shared/metrics/index.ts';
import type { RequestEndStatus, RunCounts } from '#shared/types.ts';
import { newRecord, placeholderRecord } from '#server/engine/records/record.ts';
import { buildResultJson, type ResultJsonInput } from '#shared/vllmResult/resultJson.ts';
import { parseResultText, pyJsonDumps } from '#shared/vllmResult/pyJson.ts';
import { VLLM_RESULTS_DIR, close, readJson, runSequence } from '#test/fixtures/golden-helpers/golden.ts';

const OPTS = {
  percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf', 'audio_duration'],
  metricPercentiles: [50, 90, 99],
};

function inputFor(cases: number[], detailed: boolean): ResultJsonInput {
  const { records, durationS } = runSequence(cases);
  const metrics = calculateMetrics(records, { durationS, ...OPTS });
  const statuses: RequestEndStatus[] = records.map((r) => (r.success ? 'completed' : 'failed'));
  const counts: RunCounts = {
    total: records.length,
    completed: metrics.completed,
    failed: metrics.failed,
    timedOut: 0,
    cancelledAfterTimeout: 0,
    cancelled: 0,
    errored: 0,
    unsent: 0,
  };
  return {
    date: '20260801-101500',
    backend: 'openai-chat-omni',
    label: null,
    modelId: 'openbmb/MiniCPM-o-4_5',
    numPrompts: cases.length,
    metadata: [['run', 'nightly']],
    requestRate: Infinity,
    burstiness: 1,
    maxConcurrency: 1,
    metrics,
    detailed,
    records,
    statuses,
    counts,
    failFast: { enabled: false, tripped: false, cause: null },
    verdict: 'passed',
    verdictReasons: ['all 3 requests completed'],
  };
}

describe('buildResultJson', () => {
  const golden = readJson<{ result: Record<string, unknown> }>('aggregate_cases1-3.expected.json').result;
  const result = buildResultJson(inputFor([1, 2, 3], true));

  it('writes the vLLM header keys first, metadata before request_rate, "inf" for an infinite rate', () => {
    expect(Object.keys(result).slice(0, 11)).toEqual([
      'date',
      'endpoint_type',
      'backend',
      'label',
      'model_id',
      'tokenizer_id',
      'num_prompts',
      'run',
      'request_rate',
      'burstiness',
      'max_concurrency',
    ]);
    expect(result).toMatchObject({
      endpoint_type: 'openai-chat-omni',
      label: null,
      tokenizer_id: 'openbmb/MiniCPM-o-4_5',
      request_rate: 'inf',
      run: 'nightly',
    });
  });

  it("has every key of vLLM-Omni's result for cases 1-3, in its order, with its values (detailed arrays included)", () => {
    const ours = Object.keys(result).filter((k) => k in golden);
    expect(ours).toEqual(Object.keys(golden));
    for (const [key, value] of Object.entries(golden)) {
      if (typeof value === 'number' && !Number.isInteger(value))
        expect(close(result[key] as number, value), key).toBe(true);
      else if (key === 'itls')
        (value as number[][]).forEach((l, i) =>
          l.forEach((v, j) => expect(close((result.itls as number[][])[i][j], v)).toBe(true)),
        );
      else expect(result[key], key).toEqual(value);
    }
    expect(result.request_goodput).toBeNull();
  });

  it('ends with stallscope keys: counts, fail-fast, verdict, per-request statuses', () => {
    expect(Object.keys(result).slice(-9)).toEqual([
      'timed_out_requests',
      'cancelled_after_timeout_requests',
      'not_dispatched_requests',
      'fail_fast_enabled',
      'fail_fast_tripped',
      'fail_fast_cause',
      'verdict',
      'verdict_reasons',
      'statuses',
    ]);
    expect(result.statuses).toEqual(['completed', 'completed', 'completed']);
  });

  it('drops the per-request arrays without --save-detailed, as vLLM does', () => {
    const compact = buildResultJson(inputFor([1, 2, 3], false));
    for (const key of ['input_lens', 'start_times', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors'])
      expect(compact).not.toHaveProperty(key);
    expect(compact).toHaveProperty('statuses');
  });

  it('keeps dataset order with placeholders for failed and unsent requests; output_lens 0 for failures', () => {
    const ok = runSequence([1]).records[0];
    const timedOut = newRecord(10, 1001);
    timedOut.ttft = 0.25;
    timedOut.error = 'request timed out: total timeout after 900 s';
    const never = placeholderRecord(12, 'REQ_CANCELLED', 'not dispatched: the breaker tripped before it was sent');
    const input = inputFor([1], true);
    const records = [ok, timedOut, never];
    const out = buildResultJson({
      ...input,
      records,
      metrics: calculateMetrics(records, { durationS: 2, ...OPTS }),
      statuses: ['completed', 'timed_out', 'not_dispatched'],
      counts: {
        total: 3,
        completed: 1,
        failed: 0,
        timedOut: 1,
        cancelledAfterTimeout: 1,
        cancelled: 0,
        errored: 0,
        unsent: 1,
      },
      failFast: {
        enabled: true,
        tripped: true,
        cause: { requestIndex: 1, requestId: 'r-1', kind: 'total', elapsedS: 900, lastPhase: 'cfm' },
      },
      verdict: 'failed_closed',
    });
    expect(out.input_lens).toEqual([17, 10, 12]);
    expect(out.output_lens).toEqual([5, 0, 0]);
    expect(out.ttfts).toEqual([0.1875, 0.25, 0]);
    expect(out.start_times).toEqual([1000, 1001, 0]);
    expect((out.errors as string[])[2]).toBe(
      'cancelled by the fail-fast breaker: not dispatched: the breaker tripped before it was sent',
    );
    expect(out).toMatchObject({
      completed: 1,
      failed: 2,
      timed_out_requests: 1,
      cancelled_after_timeout_requests: 1,
      not_dispatched_requests: 1,
    });
    expect(out.fail_fast_cause).toEqual({
      request_index: 1,
      request_id: 'r-1',
      kind: 'total',
      elapsed_s: 900,
      last_phase: 'cfm',
    });
  });

  it('never writes NaN or Infinity: metrics without samples have no keys, stray non-finite values are dropped', () => {
    const failedOnly = [placeholderRecord(10, 'REQ_CANCELLED', 'never sent')];
    const metrics = {
      ...calculateMetrics(failedOnly, { durationS: 0, ...OPTS }),
      weird_ms: Number.NaN,
      other: Infinity,
    };
    const out = buildResultJson({ ...inputFor([1], true), records: failedOnly, metrics });
    expect(out).not.toHaveProperty('mean_ttft_ms');
    expect(out).not.toHaveProperty('weird_ms');
    expect(out).not.toHaveProperty('other');
    expect(out.num_ttft_samples).toBe(0);
    const text = pyJsonDumps(out);
    expect(text).not.toMatch(/NaN|Infinity/);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(out)));
  });
});

describe('pyJsonDumps', () => {
  it('uses Python json.dumps separators and ASCII escapes', () => {
    expect(pyJsonDumps({ a: [1, 2.5], b: 'café ✓', c: null, d: true })).toBe(
      '{"a": [1, 2.5], "b": "caf\\u00e9 \\u2713", "c": null, "d": true}',
    );
    expect(JSON.parse(pyJsonDumps({ s: '😀\n"' })).s).toBe('😀\n"');
  });
});

describe('parseResultText', () => {
  const files = readdirSync(VLLM_RESULTS_DIR).filter((f) => f.endsWith('.json'));

  it.each(files)('reads the real vLLM result %s', (file) => {
    const text = readFileSync(new URL(file, VLLM_RESULTS_DIR), 'utf8');
    const objects = parseResultText(text);
    const lines = text.split('\n').filter((l) => l.trim().startsWith('{"'));
    expect(objects.length).toBe(file.startsWith('detailed-append-jsonl') ? lines.length : 1);
    for (const o of objects) {
      expect(typeof o.completed).toBe('number');
      expect(o).toHaveProperty('request_rate');
    }
  });

  it('reads the JSON-lines files object by object (16 and 11 runs)', () => {
    const count = (f: string) => parseResultText(readFileSync(new URL(f, VLLM_RESULTS_DIR), 'utf8')).length;
    expect(count('detailed-append-jsonl-itls.json')).toBe(16);
    expect(count('detailed-append-jsonl-1token.json')).toBe(11);
  });

  it('accepts bare NaN / Infinity / -Infinity as vLLM writes them, but not inside strings', () => {
    const text =
      '{"mean_tpot_ms": NaN, "p99": Infinity, "min": -Infinity, "s": "NaN Infinity", "l": [NaN, 1]}\n{"x": 1}';
    const [a, b] = parseResultText(text);
    expect(a.mean_tpot_ms).toBeNaN();
    expect(a.p99).toBe(Infinity);
    expect(a.min).toBe(-Infinity);
    expect(a.s).toBe('NaN Infinity');
    expect((a.l as number[])[0]).toBeNaN();
    expect(b).toEqual({ x: 1 });
  });

  it('accepts an indented single object and a leading newline', () => {
    expect(parseResultText('\n{\n  "a": {\n    "b": [1, 2]\n  }\n}\n')).toEqual([{ a: { b: [1, 2] } }]);
  });

  it.each(['', '   ', '{"a": 1', '[1, 2]', '{"a": nope}', '{"a": 1} 5'])(
    'rejects %j with API_IMPORT_INVALID',
    (text) => {
      expect(() => parseResultText(text)).toThrowError(StallscopeError);
      try {
        parseResultText(text);
      } catch (err) {
        expect((err as StallscopeError).code).toBe('API_IMPORT_INVALID');
      }
    },
  );
});

describe('ramp-up keys', () => {
  it('the strategy and rates follow max_concurrency; rps_change_events follow the peaks; neither without ramp-up', () => {
    const plain = buildResultJson(inputFor([1, 2], false));
    expect(plain).not.toHaveProperty('ramp_up_strategy');
    expect(plain).not.toHaveProperty('rps_change_events');
    const events = [
      { rps: 1, timestamp: '2026-08-01T10:15:00.250000' },
      { rps: 2, timestamp: '2026-08-01T10:15:03.500000' },
    ];
    const r = buildResultJson({
      ...inputFor([1, 2], false),
      rampUp: { strategy: 'exponential', startRps: 1, endRps: 2 },
      rpsChangeEvents: events,
    });
    const keys = Object.keys(r);
    expect(keys.slice(keys.indexOf('max_concurrency'), keys.indexOf('max_concurrency') + 4)).toEqual([
      'max_concurrency',
      'ramp_up_strategy',
      'ramp_up_start_rps',
      'ramp_up_end_rps',
    ]);
    expect(r).toMatchObject({
      ramp_up_strategy: 'exponential',
      ramp_up_start_rps: 1,
      ramp_up_end_rps: 2,
      rps_change_events: events,
    });
    // After rtfx and upstream's sample counts (and a realtime run's duplex_* keys).
    expect(keys.indexOf('rps_change_events')).toBe(keys.indexOf('num_audio_rtf_samples') + 1);
  });
});
