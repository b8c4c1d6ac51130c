/** The one module of words and numbers: thousands separators, plurals that agree, moments with date and zone. */
import { describe, expect, it } from 'vitest';
import { count, dateTime, plural } from '#shared/format.ts';
import { evaluateVerdict } from '#shared/runInfo/verdict.ts';
import type { RunCounts } from '#shared/types.ts';

describe('format', () => {
  it('writes counts with thousands separators and keeps decimals', () => {
    expect(count(0)).toBe('0');
    expect(count(1083)).toBe('1,083');
    expect(count(1_234_567)).toBe('1,234,567');
    expect(count(2.5)).toBe('2.5');
    expect(count(-1200)).toBe('-1,200');
    expect(count(Number.POSITIVE_INFINITY)).toBe('Infinity');
  });

  it('agrees the noun with the number, with an irregular plural where given', () => {
    expect(plural(1, 'process', 'processes')).toBe('1 process');
    expect(plural(2, 'process', 'processes')).toBe('2 processes');
    expect(plural(0, 'thread')).toBe('0 threads');
    expect(plural(1078, 'request')).toBe('1,078 requests');
  });

  it('writes a moment as date, 24-hour time and zone, in the zone asked for', () => {
    const t = Date.UTC(2026, 11, 1, 21, 14, 53);
    expect(dateTime(t, 'UTC')).toBe('2026-12-01 21:14:53 UTC');
    expect(dateTime(t, 'Asia/Kolkata')).toBe('2026-12-02 02:44:53 GMT+5:30');
    expect(dateTime(t, 'America/New_York')).toBe('2026-12-01 16:14:53 EST');
    expect(dateTime(Date.UTC(2026, 0, 2, 0, 0, 0), 'UTC')).toBe('2026-01-02 00:00:00 UTC');
    expect(dateTime(null)).toBe('–');
  });
});

describe('verdict reasons', () => {
  const counts: RunCounts = {
    total: 1088,
    completed: 0,
    failed: 1088,
    timedOut: 5,
    cancelledAfterTimeout: 1083,
    cancelled: 0,
    errored: 0,
    unsent: 1078,
  };
  // Caught: a reason built with `${n}` prints "1083 requests … (1078 unsent)" beside the cards' "1,083".
  it('write their counts with thousands separators', () => {
    const { reasons } = evaluateVerdict({ counts, metrics: {}, thresholds: [] });
    expect(reasons).toContain('1,083 requests cancelled after a timeout (1,078 never sent)');
    expect(reasons).toContain('5 requests timed out');
  });
});
