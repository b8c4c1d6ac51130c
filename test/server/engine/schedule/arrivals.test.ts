import { describe, expect, it } from 'vitest';
import { arrivalOffsets } from '#server/engine/schedule/arrivals.ts';
import { Rng } from '#server/engine/random/xoshiro.ts';

describe('Rng (the synthetic prompts)', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = new Rng(7),
      b = new Rng(7),
      c = new Rng(8);
    const xs = Array.from({ length: 5 }, () => a.random());
    expect(Array.from({ length: 5 }, () => b.random())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.random())).not.toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });
});

describe('arrivalOffsets', () => {
  it('inf: everything at 0', () => {
    expect(arrivalOffsets(4, { mode: 'immediate' })).toEqual([0, 0, 0, 0]);
  });

  it('finite rate: non-decreasing, seeded, rescaled so the last arrival is N/rate', () => {
    const o = arrivalOffsets(100, { mode: 'rate', rate: 4, burstiness: 1, seed: 0 });
    expect(o).toHaveLength(100);
    expect(o[99]).toBe(25);
    for (let i = 1; i < 100; i++) expect(o[i]).toBeGreaterThanOrEqual(o[i - 1]);
    expect(arrivalOffsets(100, { mode: 'rate', rate: 4, burstiness: 1, seed: 0 })).toEqual(o);
    expect(arrivalOffsets(100, { mode: 'rate', rate: 4, burstiness: 1, seed: 1 })).not.toEqual(o);
  });

  it('infinite burstiness is a constant interval; high burstiness is nearly regular', () => {
    expect(arrivalOffsets(4, { mode: 'rate', rate: 2, burstiness: Infinity, seed: 0 })).toEqual([0.5, 1, 1.5, 2]);
    const o = arrivalOffsets(200, { mode: 'rate', rate: 1, burstiness: 1000, seed: 0 });
    const gaps = o.slice(1).map((x, i) => x - o[i]);
    for (const g of gaps) expect(Math.abs(g - 1)).toBeLessThan(0.2);
  });

  it('self-timed: each request at its own timestamp', () => {
    expect(arrivalOffsets(3, { mode: 'self-timed', timestamps: [0, 1.5, 3600] })).toEqual([0, 1.5, 3600]);
  });
});
