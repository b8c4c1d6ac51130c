import { describe, expect, it } from 'vitest';
import { groupedConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import { pyIsoformat, trafficLines } from '#server/engine/schedule/traffic.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { readJson } from '#test/fixtures/golden-helpers/golden.ts';

const config = (over: Partial<FlatBenchConfig>): RunConfig =>
  groupedConfig({
    runId: 'r',
    baseUrl: 'http://127.0.0.1:1',
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'm',
    dataset: { name: 'random', inputLen: 8, outputLen: 8 },
    numPrompts: 1,
    maxConcurrency: 1,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: [],
    metricPercentiles: [99],
    timeouts: {},
    failFast: false,
    thresholds: [],
    ...over,
  });

describe('trafficLines', () => {
  it('prints what vllm bench serve printed for the golden run, line for line', () => {
    const golden = readJson<{ console_stdout: string }>('aggregate_cases1-3.expected.json').console_stdout.split('\n');
    const at = golden.indexOf('Starting main benchmark run...');
    expect(trafficLines(config({}))).toEqual(golden.slice(at + 1, at + 4));
  });

  it('a finite gamma rate, no concurrency limit, and ramp-up', () => {
    expect(trafficLines(config({ requestRate: 4, burstiness: 0.5, maxConcurrency: null }))).toEqual([
      'Traffic request rate: 4.0',
      'Burstiness factor: 0.5 (Gamma distribution)',
      'Maximum request concurrency: None',
    ]);
    expect(trafficLines(config({ rampUp: { strategy: 'linear', startRps: 1, endRps: 20 } })).slice(0, 2)).toEqual([
      'Traffic ramp-up strategy: linear.',
      'Will increase RPS from 1 to 20 RPS over the duration of the benchmark.',
    ]);
  });
});

describe('pyIsoformat', () => {
  it('is datetime.now().isoformat(): local time, microseconds unless zero', () => {
    expect(pyIsoformat(new Date(2026, 7, 1, 10, 15, 3, 250))).toBe('2026-08-01T10:15:03.250000');
    expect(pyIsoformat(new Date(2026, 0, 2, 3, 4, 5, 0))).toBe('2026-01-02T03:04:05');
    expect(pyIsoformat(new Date(2026, 0, 2, 3, 4, 5, 7))).toBe('2026-01-02T03:04:05.007000');
  });
});
