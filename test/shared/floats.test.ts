/** The metrics' growing float64 list: every value kept in order across growths, whichever way it was appended. */
import { describe, expect, it } from 'vitest';
import { Floats } from '#shared/metrics/floats.ts';

describe('Floats', () => {
  it('keeps values pushed one at a time and whole lists (typed or plain) in order, across growths', () => {
    const f = new Floats(2);
    const want: number[] = [];
    let x = 0.5;
    for (let round = 0; round < 40; round++) {
      f.push(x);
      want.push(x);
      const batch = Array.from({ length: round % 7 }, (_, k) => x * 3 + k);
      f.pushAll(round % 2 === 0 ? Float64Array.from(batch) : batch);
      want.push(...batch);
      // A view of a longer buffer, as the engine's ITL lists are.
      f.pushAll(new Float64Array([9, x, 9]).subarray(1, 2));
      want.push(x);
      x = x * 1.7 - 0.3;
    }
    expect(f.length).toBe(want.length);
    expect(Array.from(f.view())).toEqual(want);
    f.pushAll([]);
    expect(f.length).toBe(want.length);
  });

  it('grows past a batch larger than twice its room at once', () => {
    const f = new Floats(1);
    f.pushAll(new Float64Array(1000).fill(2));
    f.push(3);
    expect(f.length).toBe(1001);
    expect(f.view()[999]).toBe(2);
    expect(f.view()[1000]).toBe(3);
  });
});
