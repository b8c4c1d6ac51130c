import { describe, expect, it } from 'vitest';
import { StallscopeError } from '#shared/errors.ts';
import type { RunCounts } from '#shared/types.ts';
import { evaluateThreshold, evaluateVerdict, formatMetricValue, parseThreshold } from '#shared/runInfo/verdict.ts';

const counts = (over: Partial<RunCounts>): RunCounts => ({
  total: 10,
  completed: 10,
  failed: 0,
  timedOut: 0,
  cancelledAfterTimeout: 0,
  cancelled: 0,
  errored: 0,
  unsent: 0,
  ...over,
});
const great = { completed: 10, failed: 0, mean_e2el_ms: 120, accuracy: 0.99 };

describe('parseThreshold', () => {
  it('parses every operator and number form', () => {
    expect(parseThreshold('mean_e2el_ms<=5000')).toEqual({
      expr: 'mean_e2el_ms<=5000',
      key: 'mean_e2el_ms',
      op: '<=',
      value: 5000,
    });
    expect(parseThreshold(' failed == 0 ')).toMatchObject({ key: 'failed', op: '==', value: 0 });
    expect(parseThreshold('p99.9_ttft_ms<1.5e3')).toMatchObject({ key: 'p99.9_ttft_ms', op: '<', value: 1500 });
    expect(parseThreshold('x>=-2.5').value).toBe(-2.5);
    expect(parseThreshold('x>.5').op).toBe('>');
    expect(parseThreshold('x!=3').op).toBe('!=');
  });

  it.each(['mean_e2el_ms', 'mean_e2el_ms<=', '<=5', 'a=<5', 'a<=5ms', 'a<=>5', '', 'a == b'])(
    'rejects %j with CONFIG_INVALID naming it',
    (expr) => {
      let err: unknown;
      try {
        parseThreshold(expr);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StallscopeError);
      expect((err as StallscopeError).code).toBe('CONFIG_INVALID');
      expect((err as Error).message).toContain(JSON.stringify(expr));
    },
  );
});

describe('evaluateVerdict', () => {
  it('passes only when every request completed and every threshold holds', () => {
    const v = evaluateVerdict({ counts: counts({}), metrics: great, thresholds: ['mean_e2el_ms<=5000', 'failed==0'] });
    expect(v.verdict).toBe('passed');
    expect(v.reasons[0]).toBe('all 10 requests completed');
    expect(v.reasons).toContain('threshold mean_e2el_ms<=5000 holds: mean_e2el_ms = 120');
  });

  it('a high-scoring partial run (1 of 10 completed, rest cancelled after a timeout) is failed_closed, never passed', () => {
    const v = evaluateVerdict({
      counts: counts({ completed: 1, failed: 9, timedOut: 1, cancelledAfterTimeout: 8, unsent: 7 }),
      metrics: { completed: 1, failed: 9, mean_e2el_ms: 10, accuracy: 1.0 },
      thresholds: ['mean_e2el_ms<=5000', 'accuracy>=0.95'],
    });
    expect(v.verdict).toBe('failed_closed');
    expect(v.reasons[0]).toMatch(/failed closed/);
    expect(v.reasons).toContain('1 request timed out');
    expect(v.reasons).toContain('8 requests cancelled after a timeout (7 never sent)');
    expect(v.reasons).toContain('threshold accuracy>=0.95 holds: accuracy = 1');
  });

  it('any unsent or cancelled request alone forces failed_closed', () => {
    expect(
      evaluateVerdict({
        counts: counts({ completed: 9, failed: 1, unsent: 1, cancelledAfterTimeout: 1 }),
        metrics: great,
        thresholds: [],
      }).verdict,
    ).toBe('failed_closed');
    expect(
      evaluateVerdict({ counts: counts({ completed: 9, failed: 1, timedOut: 1 }), metrics: great, thresholds: [] })
        .verdict,
    ).toBe('failed_closed');
  });

  it('a failed request or a failed threshold gives failed', () => {
    expect(
      evaluateVerdict({ counts: counts({ completed: 9, failed: 1, errored: 1 }), metrics: great, thresholds: [] }),
    ).toMatchObject({ verdict: 'failed', reasons: ['1 request failed'] });
    const v = evaluateVerdict({ counts: counts({}), metrics: great, thresholds: ['mean_e2el_ms<100'] });
    expect(v.verdict).toBe('failed');
    expect(v.reasons).toEqual(['threshold mean_e2el_ms<100 failed: mean_e2el_ms = 120']);
  });

  it('a threshold on a missing, null or non-numeric key fails instead of passing silently', () => {
    for (const [metrics, text] of [
      [great, 'the result has no key mean_tpot_ms'],
      [{ ...great, mean_tpot_ms: null }, 'mean_tpot_ms is null, not a number'],
      [{ ...great, mean_tpot_ms: 'fast' }, 'mean_tpot_ms is "fast", not a number'],
    ] as const) {
      const v = evaluateVerdict({ counts: counts({}), metrics, thresholds: ['mean_tpot_ms<=50'] });
      expect(v.verdict).toBe('failed');
      expect(v.reasons.join('\n')).toContain(text);
    }
  });

  it('a malformed threshold reaching evaluation fails with the parse message', () => {
    const v = evaluateVerdict({ counts: counts({}), metrics: great, thresholds: ['mean_e2el_ms'] });
    expect(v.verdict).toBe('failed');
    expect(v.reasons[0]).toMatch(/invalid configuration: threshold "mean_e2el_ms"/);
    expect(evaluateThreshold('bogus', great).holds).toBe(false);
  });

  it('errored and interrupted take precedence, with reasons', () => {
    expect(
      evaluateVerdict({ counts: counts({ completed: 0 }), metrics: {}, thresholds: [], errored: true }).verdict,
    ).toBe('errored');
    const v = evaluateVerdict({
      counts: counts({ completed: 3, failed: 7, cancelled: 7 }),
      metrics: great,
      thresholds: [],
      interrupted: true,
    });
    expect(v.verdict).toBe('interrupted');
    expect(v.reasons[0]).toMatch(/interrupted/);
  });

  it('names who interrupted the run; the aborted requests are cancellations, not failures', () => {
    const v = evaluateVerdict({
      counts: counts({ completed: 3, failed: 7, cancelled: 7, unsent: 3 }),
      metrics: great,
      thresholds: [],
      interrupted: true,
      interruptCause: 'dashboard',
    });
    expect(v.reasons).toEqual([
      'the run was cancelled from the dashboard; in-flight requests were aborted',
      '7 requests cancelled by the interrupt (3 never sent)',
    ]);
    const s = evaluateVerdict({
      counts: counts({}),
      metrics: great,
      thresholds: [],
      interrupted: true,
      interruptCause: 'signal',
    });
    expect(s.reasons[0]).toMatch(/^the run was interrupted by a signal/);
  });

  it('prints threshold values at the metric precision (two decimals, as vllm bench serve)', () => {
    expect(evaluateThreshold('mean_ttft_ms<=20', { mean_ttft_ms: 11.932345678 }).reason).toBe(
      'threshold mean_ttft_ms<=20 holds: mean_ttft_ms = 11.93',
    );
    expect(evaluateThreshold('failed==0', { failed: 3 }).reason).toBe('threshold failed==0 failed: failed = 3');
    expect(formatMetricValue(0.001234)).toBe('0.0012');
    // Error rates keep four decimals: the Chinese CER bound 0.0156 must not read as 0.02.
    expect(
      evaluateThreshold('seed_tts_content_error_mean<=0.0156', { seed_tts_content_error_mean: 0.01634 }).reason,
    ).toBe('threshold seed_tts_content_error_mean<=0.0156 failed: seed_tts_content_error_mean = 0.0163');
  });

  it('requests that are neither completed nor accounted for fail the run', () => {
    const v = evaluateVerdict({ counts: counts({ completed: 8 }), metrics: great, thresholds: [] });
    expect(v).toEqual({ verdict: 'failed', reasons: ['2 requests did not complete'] });
    expect(evaluateVerdict({ counts: counts({ total: 0, completed: 0 }), metrics: {}, thresholds: [] }).verdict).toBe(
      'failed',
    );
  });
});
