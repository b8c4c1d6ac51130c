import { describe, expect, it } from 'vitest';
import { createProgressBuffer, ProgressReader, ProgressWriter } from '#server/repro/watchdog/progress.ts';
import { boundDetails, MAX_DETAIL_BYTES, MAX_DETAIL_KEYS, MAX_DETAIL_STRING } from '#server/repro/watchdog/details.ts';

describe('progress record', () => {
  it('publishes op, phase and counter, and replaces the details at each phase (never merges)', () => {
    const sab = createProgressBuffer();
    const w = new ProgressWriter(sab);
    const r = new ProgressReader(sab);
    expect(r.snapshot().busy).toBe(false);
    w.begin(7, 2, 1000);
    w.phase('setup', { batch_size: 2, last_chunk: false }, 1001);
    const s1 = r.snapshot();
    expect(s1).toMatchObject({
      busy: true,
      opId: 7,
      phase: 'setup',
      batchSize: 2,
      opStartMs: 1000,
      phaseStartMs: 1001,
      lastProgressMs: 1001,
    });
    expect(s1.details).toEqual({ batch_size: 2, last_chunk: false });
    w.phase('encoder', { codes: 56 }, 1010);
    const s2 = r.snapshot();
    expect(s2.details).toEqual({ codes: 56 });
    expect(s2.counter).toBeGreaterThan(s1.counter);
    w.phase('encoder', { codes: 57 }, 1020); // an update inside a phase is progress but keeps the phase start
    expect(r.snapshot()).toMatchObject({ phaseStartMs: 1010, lastProgressMs: 1020, details: { codes: 57 } });
    w.end(1030);
    expect(r.snapshot()).toMatchObject({ busy: false, phase: null, details: {} });
  });

  it('carries cancel flags for the rows of the running op, cleared at the end', () => {
    const sab = createProgressBuffer();
    const w = new ProgressWriter(sab);
    const r = new ProgressReader(sab);
    w.begin(1, 3);
    r.cancelRow(1);
    expect([0, 1, 2].map((i) => w.isCancelled(i))).toEqual([false, true, false]);
    w.end();
    expect(w.isCancelled(1)).toBe(false);
  });

  it('bounds details: keys, string length and total size', () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(boundDetails(many))).toHaveLength(MAX_DETAIL_KEYS);
    const long = boundDetails({ s: 'x'.repeat(10_000) });
    expect((long.s as string).length).toBe(MAX_DETAIL_STRING);
    const big = boundDetails(Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'y'.repeat(200)])));
    expect(JSON.stringify(big).length).toBeLessThanOrEqual(MAX_DETAIL_BYTES);
    expect(boundDetails({ f: Infinity, o: { a: 1 } })).toEqual({
      f: 'Infinity',
      o: '{"a":1}', // a nested value as JSON, never "[object Object]"
    });
  });
});
