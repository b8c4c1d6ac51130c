/**
 * The stop rules' one reading (shared/config/stopRules.ts), used by the engine, the
 * CLI and the form: each rule's canonical form, what it refuses (unknown
 * metrics, impossible numbers, a count or window beyond the run) with the
 * rule quoted on the `stopOn` field, and the rules and trips in words.
 */
import { describe, expect, it } from 'vitest';
import {
  describeStopRule,
  effectiveStopRules,
  liveMetricKeys,
  parseStopRule,
  stopRuleIssues,
  tripText,
  type StopRuleContext,
} from '#shared/config/stopRules.ts';
import { runSpecIssues, withRunSpecDefaults } from '#shared/config/runSpec.ts';
import type { StallscopeError } from '#shared/errors.ts';

const ctx: StopRuleContext = {
  numRequests: 100,
  metricKeys: liveMetricKeys({ percentileMetrics: ['ttft', 'e2el'], metricPercentiles: [50, 99] }),
};

function refusal(text: string, c: StopRuleContext | null = ctx): StallscopeError {
  try {
    parseStopRule(text, c);
  } catch (e) {
    return e as StallscopeError;
  }
  throw new Error(`${text} was accepted`);
}

describe('parseStopRule', () => {
  it('reads every kind into its canonical form', () => {
    expect(parseStopRule('timeouts>=2', ctx)).toEqual({ kind: 'timeouts', text: 'timeouts>=2', n: 2 });
    expect(parseStopRule(' errors >= 3 ', ctx)).toEqual({ kind: 'errors', text: 'errors>=3', n: 3 });
    expect(parseStopRule('consecutive_errors>=4', ctx)).toMatchObject({ kind: 'consecutive_errors', n: 4 });
    expect(parseStopRule('error_rate>0.2,window=50,min=20', ctx)).toEqual({
      kind: 'error_rate',
      text: 'error_rate>0.2,window=50,min=20',
      op: '>',
      rate: 0.2,
      window: 50,
      min: 20,
    });
    // The minimum defaults to the window (a full window), or 1 over the whole run.
    expect(parseStopRule('error_rate>0.2,window=50', ctx)).toMatchObject({ window: 50, min: 50 });
    expect(parseStopRule('error_rate>=0.5', ctx)).toMatchObject({ op: '>=', window: null, min: 1 });
    expect(parseStopRule('no_progress>=60', ctx)).toEqual({
      kind: 'no_progress',
      text: 'no_progress>=60s',
      seconds: 60,
    });
    expect(parseStopRule('no_progress>=2.5s', ctx)).toMatchObject({ seconds: 2.5, text: 'no_progress>=2.5s' });
    expect(parseStopRule('p99_ttft_ms>2000,min=20', ctx)).toEqual({
      kind: 'metric',
      text: 'p99_ttft_ms>2000,min=20',
      key: 'p99_ttft_ms',
      op: '>',
      value: 2000,
      min: 20,
    });
    expect(parseStopRule('request_throughput<1.5', ctx)).toMatchObject({ key: 'request_throughput', op: '<', min: 1 });
  });

  it('refuses unknown metrics, naming what a run computes', () => {
    const e = refusal('p95_ttft_ms>100');
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.field).toBe('stopOn');
    expect(e.message).toContain("stop rule 'p95_ttft_ms>100': unknown metric 'p95_ttft_ms'");
    expect(refusal('p99_tpot_ms>5').message).toContain('unknown metric'); // tpot is not a percentile metric here
    expect(refusal('seed_tts_content_error_mean>0.1').message).toContain('unknown metric'); // known only after the run
    expect(refusal('erors>=3').message).toContain("unknown metric 'erors'");
  });

  it('refuses impossible numbers and a count or window beyond the run', () => {
    expect(refusal('errors>=0').message).toContain('the count must be a whole number ≥ 1 (got 0)');
    expect(refusal('errors>=2.5').message).toContain('whole number');
    expect(refusal('timeouts>=101').message).toContain("the count 101 is more than the run's 100 requests");
    expect(refusal('error_rate>1').message).toContain('a fraction in [0, 1)');
    expect(refusal('error_rate>=0').message).toContain('a fraction in (0, 1]');
    expect(refusal('error_rate>-0.1').message).toContain('[0, 1)');
    expect(refusal('error_rate>0.1,window=500').message).toContain("the window 500 is more than the run's 100");
    expect(refusal('error_rate>0.1,min=0').message).toContain('min must be a whole number');
    expect(refusal('no_progress>=0').message).toContain('the seconds must be > 0');
    expect(refusal('no_progress>=-5s').message).toContain('> 0');
    expect(refusal('no_progress>=abc').message).toContain("the seconds 'abc' is not a number");
    expect(refusal('p99_ttft_ms>1e999').message).toContain('not a finite number');
    expect(refusal('p99_ttft_ms>5,min=200').message).toContain("min 200 is more than the run's 100");
  });

  it('refuses a silence longer than a day (its timer would overflow past 2³¹ − 1 ms), accepts a day', () => {
    expect(parseStopRule('no_progress>=86400s', ctx)).toMatchObject({ seconds: 86_400 });
    expect(refusal('no_progress>=86400.5').message).toContain('the seconds must be at most 86400 (24 h');
    expect(refusal('no_progress>=3000000', null).message).toContain('at most 86400');
  });

  it('refuses a threshold its key can never reach, with the reason; accepts the edge that can', () => {
    expect(refusal('mean_e2el_ms<=-1').message).toContain('can never trip: mean_e2el_ms is never below 0');
    expect(refusal('output_throughput<0').message).toContain('output_throughput is never below 0');
    expect(refusal('p99_ttft_ms<-0.5', null).message).toContain('never below 0');
    expect(refusal('completed>100').message).toContain('completed never exceeds 100 (it counts requests');
    expect(refusal('failed>=101').message).toContain('failed never exceeds 100');
    expect(refusal('max_concurrent_requests>100').message).toContain('never exceeds 100');
    // A fraction (…_rate) never exceeds 1, whatever the run (no context: the key's name alone says it).
    expect(refusal('audio_continuity_ok_rate>1', null).message).toContain('never exceeds 1 (it is a fraction');
    expect(refusal('audio_continuity_ok_rate>=1.5', null).message).toContain('never exceeds 1');
    // The edges a key can reach are kept.
    expect(parseStopRule('mean_e2el_ms<=0', ctx)).toMatchObject({ op: '<=', value: 0 });
    expect(parseStopRule('completed>=100', ctx)).toMatchObject({ op: '>=', value: 100 });
    expect(parseStopRule('audio_continuity_ok_rate<1', null)).toMatchObject({ value: 1 });
  });

  it('refuses the wrong operator, unknown or repeated options, and text that is no rule', () => {
    expect(refusal('errors>3').message).toContain('errors takes >= (got >)');
    expect(refusal('no_progress>60').message).toContain('no_progress takes >=');
    expect(refusal('p99_ttft_ms==5').message).toContain('takes >, >=, < or <=');
    expect(refusal('errors>=3,min=2').message).toContain("takes no option ('min')");
    expect(refusal('error_rate>0.1,windw=5').message).toContain("unknown option 'windw' (known: window, min)");
    expect(refusal('error_rate>0.1,min=2,min=3').message).toContain("option 'min' is given twice");
    expect(refusal('stop when slow').message).toContain('is not NAME OP NUMBER');
  });

  it('without a run context reads the syntax only', () => {
    expect(parseStopRule('errors>=5000', null)).toMatchObject({ n: 5000 });
    expect(parseStopRule('anything_ms>5', null)).toMatchObject({ kind: 'metric', key: 'anything_ms' });
  });
});

describe('the rules in words', () => {
  it('says each rule', () => {
    const words = (t: string) => describeStopRule(parseStopRule(t, ctx));
    expect(words('timeouts>=1')).toBe('stop at the 1st structural timeout');
    expect(words('timeouts>=3')).toBe('stop at the 3rd structural timeout');
    expect(words('errors>=3')).toBe('stop once 3 requests have failed (any error, timeouts included)');
    expect(words('consecutive_errors>=2')).toBe('stop once 2 requests in a row failed');
    expect(words('error_rate>0.2,window=50,min=20')).toBe(
      'stop when more than 20% of the last 50 ended requests failed, once 20 requests have ended',
    );
    expect(words('no_progress>=60s')).toBe('stop when requests are in flight and none has received a byte for 60 s');
    expect(words('p99_ttft_ms>2000,min=20')).toBe(
      'stop when p99_ttft_ms exceeds 2000, evaluated during the run once 20 requests have completed',
    );
  });

  it('says a trip with its evidence', () => {
    expect(
      tripText({
        kind: 'errors',
        rule: 'errors>=3',
        atS: 1.2,
        value: 3,
        requests: [1, 3, 5].map((index) => ({ index, requestId: `r-${index}` })),
        omitted: 0,
      }),
    ).toBe('the stop rule errors>=3 stopped the run at 1.20 s: 3 requests failed (#1, #3, #5)');
    expect(
      tripText({
        kind: 'no_progress',
        rule: 'no_progress>=2s',
        atS: 4,
        value: 2.004,
        requests: [{ index: 7, requestId: 'r-7' }],
        omitted: 3,
      }),
    ).toBe(
      'the stop rule no_progress>=2s stopped the run at 4.00 s: 4 requests in flight (#7 and 3 more), none received a byte for 2.0 s',
    );
    expect(
      tripText({
        kind: 'metric',
        rule: 'p99_ttft_ms>50,min=4',
        atS: 1,
        value: 81.257,
        over: 4,
        requests: [],
        omitted: 0,
      }),
    ).toBe(
      'the stop rule p99_ttft_ms>50,min=4 stopped the run at 1.00 s: p99_ttft_ms was 81.26 after 4 completed requests',
    );
  });
});

describe('effective rules and the form', () => {
  it('fail-fast is timeouts>=1, after the rules given', () => {
    expect(effectiveStopRules(['errors>=3'], true).map((r) => r.text)).toEqual(['errors>=3', 'timeouts>=1']);
    expect(effectiveStopRules(undefined, false)).toEqual([]);
  });

  it('stopRuleIssues lists each refusal in order', () => {
    expect(stopRuleIssues(['errors>=3', 'no_progress>=0', 'p95_ttft_ms>1'], ctx)).toEqual([
      "stop rule 'no_progress>=0': the seconds must be > 0 (got 0)",
      expect.stringContaining("stop rule 'p95_ttft_ms>1': unknown metric"),
    ]);
  });

  it('the form refuses what the engine refuses, on the stopOn field, against the spec size and metrics', () => {
    const spec = (over: Record<string, unknown>) =>
      withRunSpecDefaults({ target: { kind: 'embedded' }, dataset: { name: 'random' }, numPrompts: 10, ...over });
    expect(runSpecIssues(spec({ stopOn: ['errors>=3', 'no_progress>=60s'] }))).toEqual([]);
    expect(runSpecIssues(spec({ stopOn: ['error_rate>0.2,window=50'] }))).toEqual([
      {
        field: 'stopOn',
        severity: 'error',
        message: expect.stringContaining("the window 50 is more than the run's 10"),
      },
    ]);
    expect(runSpecIssues(spec({ stopOn: ['p99_ttft_ms>1'], percentileMetrics: ['e2el'] }))[0]).toMatchObject({
      field: 'stopOn',
      message: expect.stringContaining("unknown metric 'p99_ttft_ms'"),
    });
    expect(runSpecIssues(spec({ stopOn: ['timeouts>=1'], timeouts: { totalS: 0 } }))[0]).toMatchObject({
      field: 'stopOn',
      message: expect.stringContaining('needs an effective timeout'),
    });
  });
});
