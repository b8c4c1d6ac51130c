/** The bulk draw (fillInts, the random dataset's prompt words) gives what `int` gives, and leaves the same state. */
import { describe, expect, it } from 'vitest';
import { Rng } from '#server/engine/random/xoshiro.ts';

describe('Rng.fillInts', () => {
  it('draws the numbers int() draws, in order, for seeds across the 32-bit range', () => {
    for (const seed of [0, 1, 7, 2 ** 30, 2 ** 31 - 1, 2 ** 31 + 5, 2 ** 32 - 1, 123456789]) {
      for (const [lo, hi] of [
        [0, 61],
        [0, 255],
        [3, 9],
      ]) {
        const a = new Rng(seed);
        const b = new Rng(seed);
        const bulk = new Uint8Array(1000);
        a.fillInts(bulk, lo, hi);
        expect(Array.from(bulk)).toEqual(Array.from({ length: 1000 }, () => b.int(lo, hi)));
        // The state after the bulk draw is the state after as many single draws: the next numbers agree.
        expect([a.nextU32(), a.random(), a.int(0, 1000)]).toEqual([b.nextU32(), b.random(), b.int(0, 1000)]);
      }
    }
  });

  it('interleaves with single draws', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const out = new Uint16Array(5);
    const mixed = [a.int(0, 9)];
    a.fillInts(out, 0, 999);
    mixed.push(...out, a.int(0, 9));
    expect(mixed).toEqual([b.int(0, 9), ...Array.from({ length: 5 }, () => b.int(0, 999)), b.int(0, 9)]);
  });
});
