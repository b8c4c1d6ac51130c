/**
 * The fixed-kind columns under the request table: exact values, nothing
 * allocated for empties, ranges filled a chunk at a time, and an index that
 * would not fit 32 bits refused rather than wrapped; packed blocks that
 * start small.
 */
import { describe, expect, it } from 'vitest';
import { BlockStore, CHUNK, FIRST_BLOCK, FloatColumn, IndexColumn } from '../../../../server/engine/records/columns.ts';

describe('FloatColumn', () => {
  it('keeps any float exactly (−0, fractions, huge) and reads its empty value where nothing was written', () => {
    const c = new FloatColumn(NaN);
    const values = [-0, 0.1 + 0.2, 1e308, -5e-324, 12345.678];
    values.forEach((v, k) => c.set(k * 1000, v));
    values.forEach((v, k) => expect(Object.is(c.get(k * 1000), v)).toBe(true));
    expect(c.get(1)).toBeNaN();
    expect(c.get(10 * CHUNK)).toBeNaN();
  });

  it('allocates nothing for the empty value and fills ranges across chunks', () => {
    const c = new FloatColumn(NaN);
    c.set(5, NaN);
    c.fill(0, 3 * CHUNK, NaN);
    expect(c.bytes).toBe(0);
    c.fill(CHUNK - 2, CHUNK + 2, 7.5);
    expect([c.get(CHUNK - 3), c.get(CHUNK - 2), c.get(CHUNK + 1), c.get(CHUNK + 2)]).toEqual([NaN, 7.5, 7.5, NaN]);
    expect(c.bytes).toBe(2 * CHUNK * 8);
  });
});

describe('IndexColumn', () => {
  it('keeps every whole number below 2^32 and reads 0 where nothing was written', () => {
    const c = new IndexColumn();
    const values = [1, 255, 256, 65_535, 65_536, 0xffff_ffff];
    values.forEach((v, k) => c.set(k, v));
    expect(values.map((_, k) => c.get(k))).toEqual(values);
    expect(c.get(CHUNK * 3)).toBe(0);
  });

  it('refuses what it cannot hold instead of wrapping it', () => {
    const c = new IndexColumn();
    for (const v of [-1, 2 ** 32, 1.5, NaN]) expect(() => c.set(0, v), String(v)).toThrow(RangeError);
    expect(c.get(0)).toBe(0);
  });

  it('fills a range a chunk at a time; zeros where no chunk exists allocate nothing', () => {
    const c = new IndexColumn();
    c.fill(0, 4 * CHUNK, 0);
    expect(c.bytes).toBe(0);
    c.set(CHUNK + 1, 9);
    c.fill(0, 4 * CHUNK, 0);
    expect(c.get(CHUNK + 1)).toBe(0);
    expect(c.bytes).toBe(CHUNK * 4);
  });
});

describe('BlockStore', () => {
  it('starts with a small block and doubles up to its block size; a longer run gets a block of its own', () => {
    const s = new BlockStore((n) => new Float64Array(n), 0xffff);
    const sizes = (): number[] => s.blocks.map((b) => b.length);
    s.reserve(48); // a first request's ITLs: a FIRST_BLOCK block, not a whole 64 Ki one
    expect(sizes()).toEqual([FIRST_BLOCK]);
    s.reserve(FIRST_BLOCK - 48); // fills it exactly
    expect(sizes()).toEqual([FIRST_BLOCK]);
    // Each run too long for the rest of the block before: the next block is twice as large, up to 0xffff,
    // and a run longer than that gets a block of its own size.
    for (let k = 0; k < 5; k++) s.reserve(FIRST_BLOCK * 2 ** k + 1);
    expect(sizes()).toEqual([4096, 8192, 16384, 32768, 0xffff, 65537]);
    expect(s.reserve(10)).toEqual({ block: 6, offset: 0 });
    expect(s.reserve(20)).toEqual({ block: 6, offset: 10 });
    expect(sizes().at(-1)).toBe(0xffff);
    expect(s.bytes).toBe(sizes().reduce((a, b) => a + b, 0) * 8);
  });
});
