import { describe, expect, it } from 'vitest';
import { groupedConfig } from '#test/helpers/benchConfig.ts';
import type { FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import { fileURLToPath } from 'node:url';
import { validateBenchConfig } from '#server/engine/run/validate.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { StallscopeError, type ErrorCode } from '#shared/errors.ts';
import { runSpecIssues, withRunSpecDefaults } from '#shared/config/runSpec.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';

const fixtures = fileURLToPath(new URL('../../../fixtures/datasets/', import.meta.url));
const okFields: FlatBenchConfig = {
  runId: 'r',
  baseUrl: 'http://127.0.0.1:8000',
  endpoint: '/v1/chat/completions',
  backend: 'openai-chat-omni',
  model: 'm',
  dataset: { name: 'random', inputLen: 8, outputLen: 8 },
  numPrompts: 4,
  maxConcurrency: 2,
  requestRate: 'inf',
  burstiness: 1,
  seed: 0,
  numWarmups: 0,
  percentileMetrics: ['ttft', 'e2el'],
  metricPercentiles: [99],
  timeouts: {},
  failFast: false,
  thresholds: [],
};
const ok: RunConfig = groupedConfig(okFields);

function refusal(over: Partial<FlatBenchConfig>): { code: ErrorCode; field?: string } {
  try {
    validateBenchConfig(groupedConfig({ ...okFields, ...over }));
  } catch (e) {
    expect(e).toBeInstanceOf(StallscopeError);
    return { code: (e as StallscopeError).code, field: (e as StallscopeError).field };
  }
  throw new Error('expected a refusal');
}

describe('validateBenchConfig', () => {
  it('headers the run could not send are refused before anything is sent; a host header is accepted', () => {
    expect(refusal({ headers: { 'x-a': 'b\r\nx-injected: 1' } })).toEqual({
      code: 'CONFIG_INVALID',
      field: 'target.headers',
    });
    expect(refusal({ headers: { 'bad name': '1' } })).toEqual({ code: 'CONFIG_INVALID', field: 'target.headers' });
    expect(refusal({ headers: { 'content-length': '5' } })).toEqual({
      code: 'CONFIG_INVALID',
      field: 'target.headers',
    });
    expect(refusal({ apiKey: 'sk\nx' })).toEqual({ code: 'CONFIG_INVALID', field: 'target.apiKey' });
    expect(() =>
      validateBenchConfig(
        groupedConfig({ ...okFields, headers: { host: 'omni.internal', 'x-team': 'tts' }, apiKey: 'sk-1' }),
      ),
    ).not.toThrow();
  });

  it('accepts a sane config and the seed-tts and trace fixtures', () => {
    expect(() => validateBenchConfig(ok)).not.toThrow();
    expect(() =>
      validateBenchConfig(
        groupedConfig({
          ...okFields,
          dataset: { name: 'seed-tts', path: `${fixtures}seed-tts`, locale: 'en', noOversample: true },
        }),
      ),
    ).not.toThrow();
    expect(() =>
      validateBenchConfig(
        groupedConfig({ ...okFields, dataset: { name: 'trace', path: `${fixtures}trace.jsonl` }, selfTimed: true }),
      ),
    ).not.toThrow();
    expect(() => validateBenchConfig(groupedConfig({ ...okFields, failFast: true }))).not.toThrow(); // default 900 s is effective
  });

  it.each([
    [{ failFast: true, timeouts: { totalS: 0 } }, 'CONFIG_FAIL_FAST_NO_TIMEOUT', 'limits.timeouts.totalS'],
    [{ failFast: true, timeouts: { totalS: -1 } }, 'CONFIG_FAIL_FAST_NO_TIMEOUT', 'limits.timeouts.totalS'],
    [{ backend: 'openai' }, 'CONFIG_BACKEND_UNSUPPORTED', 'target.backend'],
    [{ selfTimed: true }, 'CONFIG_SELF_TIMED_NEEDS_TRACE', 'dispatch.selfTimed'],
    [{ requestRate: 0 }, 'CONFIG_INVALID', 'dispatch.requestRate'],
    [{ requestRate: -2 }, 'CONFIG_INVALID', 'dispatch.requestRate'],
    [{ burstiness: 0 }, 'CONFIG_INVALID', 'dispatch.burstiness'],
    [{ maxConcurrency: 0 }, 'CONFIG_INVALID', 'dispatch.maxConcurrency'],
    [{ numPrompts: 0 }, 'CONFIG_INVALID', 'workload.numPrompts'],
    [{ extraBody: [] as unknown as Record<string, unknown> }, 'CONFIG_EXTRA_BODY', 'workload.extraBody'],
    [
      { dataset: { name: 'seed-tts', path: '/nonexistent', locale: 'en', noOversample: true } },
      'CONFIG_DATASET_UNREADABLE',
      'workload.dataset.path',
    ],
    [{ dataset: { name: 'trace', path: '/nonexistent.jsonl' } }, 'CONFIG_DATASET_UNREADABLE', 'workload.dataset.path'],
    [{ endpoint: '/v1/completions' }, 'CONFIG_INVALID', 'target.endpoint'],
    [{ percentileMetrics: ['ttfx'] }, 'CONFIG_INVALID', 'output.percentileMetrics'],
    [{ thresholds: ['mean_e2el_ms <== 3'] }, 'CONFIG_INVALID', 'output.thresholds'],
    [{ timeouts: { idleS: 0 } }, 'CONFIG_INVALID', 'limits.timeouts.idleS'],
    [{ seed: -1 }, 'CONFIG_INVALID', 'workload.seed'],
    [
      { rampUp: { strategy: 'linear', startRps: 1, endRps: 5 }, requestRate: 3 },
      'CONFIG_INVALID',
      'dispatch.requestRate',
    ],
    [{ rampUp: { strategy: 'linear', startRps: 0, endRps: 5 } }, 'CONFIG_INVALID', 'dispatch.rampUp.startRps'],
    [
      {
        rampUp: { strategy: 'linear', startRps: 1, endRps: 5 },
        dataset: { name: 'trace', path: `${fixtures}trace.jsonl` },
      },
      'CONFIG_INVALID',
      'dispatch.rampUp',
    ],
    [{ rampUp: { strategy: 'exponential', startRps: 6, endRps: 5 } }, 'CONFIG_INVALID', 'dispatch.rampUp.startRps'],
    [
      { rampUp: { strategy: 'sigmoid' as 'linear', startRps: 1, endRps: 5 } },
      'CONFIG_INVALID',
      'dispatch.rampUp.strategy',
    ],
    [{ goodput: { audio_ttft: 100 } as FlatBenchConfig['goodput'] }, 'CONFIG_INVALID', 'output.goodput'],
    [{ goodput: { e2el: -1 } }, 'CONFIG_INVALID', 'output.goodput'],
    [{ seed: 2 ** 32 }, 'CONFIG_INVALID', 'workload.seed'],
    [{ seed: 0.5 }, 'CONFIG_INVALID', 'workload.seed'],
  ] as const)('refuses %j', (over, code, field) => {
    expect(refusal(over as Partial<FlatBenchConfig>)).toEqual({ code, field });
  });

  it('fail-fast with the legacy total but a first-byte or idle timeout is accepted', () => {
    expect(() =>
      validateBenchConfig(groupedConfig({ ...okFields, failFast: true, timeouts: { totalS: 0, idleS: 30 } })),
    ).not.toThrow();
  });
});

describe('fail-fast needs an effective timeout: the form and the engine refuse the same timeouts', () => {
  const totals = [900, 5, 0, -1];
  const extras = [{}, { firstByteS: 2 }, { idleS: 3 }, { firstByteS: 2, idleS: 3 }];
  const cases = totals.flatMap((totalS) => extras.map((extra) => ({ totalS, ...extra })));
  it.each(cases)('timeouts %j', (timeouts) => {
    const byEngine = (() => {
      try {
        validateBenchConfig(groupedConfig({ ...okFields, failFast: true, timeouts }));
        return false;
      } catch (e) {
        return (e as StallscopeError).code === 'CONFIG_FAIL_FAST_NO_TIMEOUT';
      }
    })();
    const byForm = runSpecIssues(withRunSpecDefaults({ ...CODE2WAV_HANG.spec, failFast: true, timeouts })).some(
      (i) => i.severity === 'error' && i.field === 'timeouts.totalS' && i.code === 'CONFIG_FAIL_FAST_NO_TIMEOUT',
    );
    expect(byForm).toBe(byEngine);
    // Refused exactly when the total restores the legacy cap and nothing else bounds a request.
    expect(byEngine).toBe(timeouts.totalS <= 0 && !('firstByteS' in timeouts) && !('idleS' in timeouts));
  });
});
