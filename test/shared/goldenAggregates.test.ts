/**
 * Aggregates: the records produced by replaying the golden transcripts go
 * through calculateMetrics with the duration the sequential run implies.
 *
 * - aggregate_cases1-3: every numeric key of the recorded `result` must match
 *   vLLM-Omni's own numbers (ints exactly, floats to 1e-9 relative).
 * - aggregate_cases1-8 and aggregate_all: docs/design.md#baseline is current upstream
 *   (OMNI-NEW), where case 5's in-stream error fails the request, and accepts
 *   case 11's `data:` without a space (so it succeeds and, reading its whole
 *   stream, shifts case 12 by 140.625 ms). Keys those changes do not touch
 *   must still equal the recording; the touched keys must equal an independent
 *   numpy recomputation (test/fixtures/golden-helpers/omni_new_oracle.py, which
 *   first proves it reproduces every recorded key under the July rules).
 */
import { describe, expect, it } from 'vitest';
import { calculateMetrics } from '#shared/metrics/index.ts';
import { ORACLE_DIR, close, readJson, runSequence } from '../fixtures/golden-helpers/golden.ts';

interface Aggregate {
  cases: string[];
  result: Record<string, unknown>;
}
type Oracle = Record<string, { result: Record<string, unknown>; affected_keys: string[] }>;

const oracle = readJson<Oracle>('omni-new-aggregates.json', ORACLE_DIR);
const OPTS = {
  percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf', 'audio_duration'],
  metricPercentiles: [50, 90, 99],
};

function metricsFor(name: string) {
  const agg = readJson<Aggregate>(`${name}.expected.json`);
  const cases = agg.cases.map((c) => Number(c.replace('case', '')));
  const { records, durationS } = runSequence(cases);
  return { agg, records, durationS, metrics: calculateMetrics(records, { durationS, ...OPTS }) };
}

function expectSame(key: string, actual: unknown, expected: unknown): void {
  if (
    typeof expected === 'number' &&
    Number.isInteger(expected) &&
    typeof actual === 'number' &&
    Number.isInteger(actual)
  ) {
    expect(actual, key).toBe(expected);
  } else if (typeof expected === 'number') {
    expect(typeof actual, key).toBe('number');
    expect(close(actual as number, expected), `${key}: ${actual} vs ${expected}`).toBe(true);
  } else {
    expect(actual, key).toEqual(expected);
  }
}

const numericKeys = (result: Record<string, unknown>) =>
  Object.keys(result).filter((k) => typeof result[k] === 'number');

describe('golden aggregates', () => {
  it('aggregate_cases1-3: every numeric result key equals vLLM-Omni', () => {
    const { agg, metrics } = metricsFor('aggregate_cases1-3');
    const keys = numericKeys(agg.result);
    expect(keys.length).toBeGreaterThan(40);
    for (const key of keys) expectSame(key, metrics[key], agg.result[key]);
    // Our additions: back-to-back requests never overlap, whatever the 1-second buckets say (2).
    expect(metrics.max_concurrent_requests).toBe(2);
    expect(metrics.max_concurrent_requests_exact).toBe(1);
    expect(metrics.num_ttft_samples).toBe(3);
    expect(metrics.num_itl_samples).toBe(13);
  });

  it.each(['aggregate_cases1-8', 'aggregate_all'])(
    '%s: unaffected keys equal the recording, OMNI-NEW-affected keys the recomputation',
    (name) => {
      const { agg, metrics } = metricsFor(name);
      const { result: expectedNew, affected_keys: affected } = oracle[name];
      expect(affected.length).toBeGreaterThan(0);
      for (const key of numericKeys(agg.result)) {
        expectSame(key, metrics[key], affected.includes(key) ? expectedNew[key] : agg.result[key]);
      }
      for (const key of [
        'num_ttft_samples',
        'num_tpot_samples',
        'num_itl_samples',
        'num_e2el_samples',
        'num_audio_ttfp_samples',
        'num_audio_rtf_samples',
      ]) {
        expectSame(key, metrics[key], expectedNew[key]);
      }
    },
  );

  it('aggregate_cases1-8 under OMNI-NEW: case 5 moves from completed to failed', () => {
    const { agg, metrics } = metricsFor('aggregate_cases1-8');
    expect(agg.result.completed).toBe(7);
    expect(metrics.completed).toBe(6);
    expect(metrics.failed).toBe(2);
  });
});
