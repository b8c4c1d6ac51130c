/** Request ranges in words and in links (`?reqs=5-8`), and the story's links to exactly those rows. */
import { describe, expect, it } from 'vitest';
import { formatRanges, parseRanges, rangeWords, toRuns } from '#shared/runView/requestRanges.ts';
import { href, parseRoute } from '#web/state/router.ts';

describe('request ranges', () => {
  it('group indices into runs, in words and in URLs', () => {
    expect(toRuns([7, 0, 1, 2, 3, 4, 4])).toEqual([
      [0, 4],
      [7, 7],
    ]);
    expect(rangeWords([5, 6, 7, 8])).toBe('#5–#8');
    expect(rangeWords([0, 1, 2, 3, 4, 7])).toBe('#0–#4, #7');
    expect(formatRanges([0, 1, 2, 3, 4, 7])).toBe('0-4,7');
  });

  it('read a URL’s ranges back, and refuse what is not one (or too big to hold)', () => {
    expect(parseRanges('0-4,7')).toEqual([0, 1, 2, 3, 4, 7]);
    expect(parseRanges('8,5-7,6')).toEqual([5, 6, 7, 8]);
    for (const bad of ['', '5-', '-5', '8-5', 'a', '1,,2', '1-2-3']) expect(parseRanges(bad)).toBeNull();
    expect(parseRanges('0-999999999')).toBeNull();
    expect(parseRanges('0-9', 10)).toHaveLength(10);
    expect(parseRanges('0-10', 10)).toBeNull();
  });

  // Caught: a story link that carried only its first request (`?req=5`) could not be shared as the batch.
  it('put a range in the run route, so the view can be shared, and read it back', () => {
    const link = href({ page: 'run', id: 'r1', request: 5, only: [5, 6, 7, 8] });
    expect(link).toBe('#/runs/r1?req=5&reqs=5-8');
    expect(parseRoute(link)).toEqual({ page: 'run', id: 'r1', request: 5, only: [5, 6, 7, 8] });
    expect(parseRoute('#/runs/r1?reqs=nope')).toEqual({ page: 'run', id: 'r1' });
    expect(href({ page: 'run', id: 'r1', request: 5 })).toBe('#/runs/r1?req=5');
  });
});
