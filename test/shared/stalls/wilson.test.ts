/**
 * The 95 % Wilson score interval against the published values of Newcombe,
 * "Two-sided confidence intervals for the single proportion: comparison of
 * seven methods", Statistics in Medicine 17 (1998), Table I, method 3.
 */
import { describe, expect, it } from 'vitest';
import { rateOf, wilsonInterval } from '#shared/stalls/wilson.ts';

describe('wilsonInterval', () => {
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
    [29, 29, 0.883, 1],
    [0, 10, 0, 0.2775],
  ])('%i of %i is [%f, %f]', (x, n, low, high) => {
    const r = wilsonInterval(x, n);
    expect(r.low).toBeCloseTo(low, 4);
    expect(r.high).toBeCloseTo(high, 4);
  });

  it('no runs say nothing: [0, 1]; a rate carries its interval', () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
    expect(rateOf(5, 8)).toMatchObject({ runs: 8, stalled: 5, hangRate: 0.625 });
    expect(rateOf(5, 8).low).toBeCloseTo(0.3057, 4);
  });
});
