/** Validation messages people can read, and cross-field rules that run on any spec. */
import { describe, expect, it } from 'vitest';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { runSpecIssues, type RunSpec } from '#shared/config/runSpec.ts';
import { schemaMessage } from '#shared/config/specMessages.ts';

const hang = () => structuredClone(CODE2WAV_HANG.spec) as RunSpec & Record<string, unknown>;
const messageOf = (spec: unknown, field: string) => runSpecIssues(spec).find((i) => i.field === field)?.message;

describe('schema messages', () => {
  it('says limits, types and emptiness in words, never the schema text', () => {
    expect(messageOf({ ...hang(), numPrompts: 0 }, 'numPrompts')).toBe('must be at least 1');
    expect(messageOf({ ...hang(), numPrompts: 2.5 }, 'numPrompts')).toBe('must be a whole number');
    expect(messageOf({ ...hang(), numPrompts: 2_000_000 }, 'numPrompts')).toBe('must be at most 1,000,000');
    expect(messageOf({ ...hang(), burstiness: 0 }, 'burstiness')).toBe('must be more than 0');
    expect(messageOf({ ...hang(), model: '' }, 'model')).toBe('must not be empty');
    expect(messageOf({ ...hang(), seed: 'x' }, 'seed')).toBe('must be a whole number');
  });

  it('describes the unions and patterns by what they accept', () => {
    expect(messageOf({ ...hang(), requestRate: 'fast' }, 'requestRate')).toBe('must be a number above 0, or inf');
    expect(messageOf({ ...hang(), requestRate: 0 }, 'requestRate')).toBe('must be a number above 0, or inf');
    expect(runSpecIssues({ ...hang(), requestRate: 'inf' })).toEqual([]);
    expect(messageOf({ ...hang(), maxConcurrency: 0 }, 'maxConcurrency')).toMatch(/^must be a whole number from 1/);
    expect(messageOf({ ...hang(), extraBody: '{"a": ' }, 'extraBody')).toMatch(/^must be a JSON object/);
    expect(messageOf({ ...hang(), endpoint: 'v1/chat' }, 'endpoint')).toMatch(/^must be a path starting with \//);
    expect(messageOf({ ...hang(), backend: 'grpc' }, 'backend')).toBe(
      'must be one of openai-chat-omni, openai-chat, openai-audio-speech, openai-realtime-tts, openai-realtime-duplex',
    );
    expect(messageOf({ ...hang(), thresholds: ['failed==0', 'fast'] }, 'thresholds.1')).toMatch(/e\.g\. mean_ttft/);
  });

  it('keeps "required" and unknown-field messages over a field-specific sentence', () => {
    expect(schemaMessage('requestRate', [{ keyword: 'required', params: {} }])).toBe('is required');
    expect(messageOf({ ...hang(), extra: 1 }, 'extra')).toBe('is not a known field');
  });

  it('reports every wrong field, not only the first eight errors TypeBox gives per check', () => {
    const bad = { ...hang(), model: '', backend: 'x', numPrompts: 0, maxConcurrency: 0, requestRate: 'x' };
    const fields = runSpecIssues({ ...bad, extraBody: '{', thresholds: ['a', 'b'], metricPercentiles: [0] });
    expect(fields.map((i) => i.field)).toEqual([
      'model',
      'backend',
      'numPrompts',
      'maxConcurrency',
      'requestRate',
      'extraBody',
      'thresholds.0',
      'thresholds.1',
      'metricPercentiles.0',
    ]);
  });

  it('never leaks raw TypeBox wording for any field of a broken spec', () => {
    const bad = { ...hang(), model: '', numPrompts: -1, requestRate: 'x', extraBody: 'x' };
    for (const i of runSpecIssues(bad)) expect(i.message).not.toMatch(/>=|fewer than|must be (number|object|integer)$/);
  });
});

describe('cross-field rules', () => {
  it('warn about a watchdog not well below the timeout even while another field is in error', () => {
    const spec = hang();
    spec.target = { ...spec.target, watchdogTimeoutS: 6 } as RunSpec['target'];
    const alone = runSpecIssues(spec);
    expect(alone.map((i) => [i.field, i.severity])).toEqual([['target.watchdogTimeoutS', 'warning']]);
    const withError = runSpecIssues({ ...spec, numPrompts: 0 });
    expect(withError.map((i) => [i.field, i.severity])).toEqual([
      ['numPrompts', 'error'],
      ['target.watchdogTimeoutS', 'warning'],
    ]);
  });

  it('refuse fail-fast without a timeout and self-timed without a trace on a partial spec too', () => {
    const partial = { ...hang(), model: '', failFast: true, timeouts: { totalS: 0 }, selfTimed: true };
    const fields = runSpecIssues(partial).map((i) => i.field);
    expect(fields).toEqual(expect.arrayContaining(['model', 'timeouts.totalS', 'selfTimed']));
  });

  it('do not pile a rule onto a field that is itself malformed', () => {
    const spec = hang();
    spec.target = { ...spec.target, watchdogTimeoutS: -5 } as RunSpec['target'];
    const issues = runSpecIssues({ ...spec, timeouts: { totalS: 'soon' } }).filter((i) => i.field.includes('.'));
    expect(issues.map((i) => [i.field, i.severity])).toEqual([
      ['timeouts.totalS', 'error'],
      ['target.watchdogTimeoutS', 'error'],
    ]);
  });
});
