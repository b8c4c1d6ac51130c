import { describe, expect, it } from 'vitest';
import { FaultPlan, normalizeFaults, parseFaultSpec } from '#server/repro/code2wav/faults.ts';
import { StallscopeError } from '#shared/errors.ts';

describe('fault specs', () => {
  it('parses PHASE:KIND with after, p, min-inflight and ms', () => {
    expect(parseFaultSpec('hift:block:after=5')).toEqual({ phase: 'hift', kind: 'block', after: 5 });
    expect(parseFaultSpec('cfm:slow:p=0.25:min-inflight=3:ms=150')).toEqual({
      phase: 'cfm',
      kind: 'slow',
      p: 0.25,
      minInflight: 3,
      delayMs: 150,
    });
    expect(normalizeFaults([{ phase: 'setup', kind: 'spin', after: 2 }, 'encoder:block'])).toEqual([
      { phase: 'setup', kind: 'spin', after: 2 },
      { phase: 'encoder', kind: 'block' },
    ]);
  });

  it.each([
    'hifi:block',
    'hift:freeze',
    'hift:block:after=0',
    'hift:block:p=2',
    'hift:block:after=x',
    'hift:block:when=3',
    'hift:block:min-inflight=-1',
  ])('refuses %s with CONFIG_FAULT_INVALID naming the spec', (spec) => {
    let err: unknown;
    try {
      parseFaultSpec(spec);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StallscopeError);
    expect((err as StallscopeError).code).toBe('CONFIG_FAULT_INVALID');
    expect((err as Error).message).toContain(spec);
  });
});

describe('fault plan', () => {
  it('after=N faults exactly the Nth op', () => {
    const plan = new FaultPlan([parseFaultSpec('hift:block:after=3')], 1);
    const fired = [1, 2, 3, 4, 5].map((op) => plan.decide(op, 0));
    expect(fired.map((f) => f !== null)).toEqual([false, false, true, false, false]);
    expect(fired[2]).toEqual({ phase: 'hift', kind: 'block', delayMs: 2000 });
  });

  it('min-inflight waits until enough requests are in flight', () => {
    const plan = new FaultPlan([parseFaultSpec('cfm:spin:min-inflight=4')], 1);
    expect(plan.decide(1, 3)).toBeNull();
    expect(plan.decide(2, 4)).not.toBeNull();
    expect(plan.decide(3, 9)).toBeNull(); // without p it fires once
  });

  it('p is seeded: the same seed gives the same ops, another seed others, and the rate is about p', () => {
    const ops = (seed: number) => {
      const plan = new FaultPlan([parseFaultSpec('encoder:slow:p=0.3')], seed);
      return Array.from({ length: 2000 }, (_, i) => plan.decide(i + 1, 0) !== null);
    };
    expect(ops(42)).toEqual(ops(42));
    expect(ops(42)).not.toEqual(ops(43));
    const rate = ops(42).filter(Boolean).length / 2000;
    expect(rate).toBeGreaterThan(0.25);
    expect(rate).toBeLessThan(0.35);
  });

  it('gives an op at most one fault, the first matching spec', () => {
    const plan = new FaultPlan([parseFaultSpec('setup:slow:p=1'), parseFaultSpec('hift:block:p=1')], 0);
    expect(plan.decide(1, 0)?.phase).toBe('setup');
  });
});
