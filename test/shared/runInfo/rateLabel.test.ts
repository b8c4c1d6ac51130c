import { describe, expect, it } from 'vitest';
import { rateLabel } from '#shared/runInfo/rateLabel.ts';

describe('rateLabel', () => {
  it('shows the rate, or the ramp when there is one (its request rate is inf only because vLLM requires it)', () => {
    expect(rateLabel('inf')).toBe('inf');
    expect(rateLabel(2.5)).toBe('2.5');
    expect(rateLabel(undefined)).toBeNull();
    expect(rateLabel('inf', { strategy: 'exponential', startRps: 1, endRps: 20 })).toBe('exponential 1→20');
  });
});
