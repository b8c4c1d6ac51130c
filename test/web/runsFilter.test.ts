/** The runs list's metadata filter: a word that is not key=value matches nothing, and the list says so. */
import { describe, expect, it } from 'vitest';
import { lastPageOffset, noMatchText, pageOffset, parseMetaFilter } from '#web/state/runsFilter.ts';

describe('metadata filter', () => {
  // Caught: words without "=" dropped silently, so "mi300-7" listed every run as if it had matched.
  it('keeps the words that are not key=value, rather than dropping them', () => {
    expect(parseMetaFilter('build=123 mi300-7, node=a =x')).toEqual({
      pairs: ['build=123', 'node=a'],
      bad: ['mi300-7', '=x'],
    });
    expect(parseMetaFilter(undefined)).toEqual({ pairs: [], bad: [] });
    expect(parseMetaFilter('empty=')).toEqual({ pairs: ['empty='], bad: [] });
  });

  it('says which filter matched nothing', () => {
    expect(noMatchText({ meta: parseMetaFilter('mi300-7') })).toBe(
      'No run matches metadata “mi300-7”: write key=value, e.g. ci_node=mi325-agent-2.',
    );
    expect(noMatchText({ meta: parseMetaFilter('node=zzz'), verdict: 'failed_closed', q: 'hang' })).toBe(
      'No run matches metadata node=zzz, “hang”, verdict failed closed. CI runs are filtered by ci_build, ci_node, ' +
        'ci_commit, ci_pipeline, ci_step (e.g. ci_node=mi325-agent-2).',
    );
    // A ci_* filter that matched nothing needs no hint about the keys.
    expect(noMatchText({ meta: parseMetaFilter('ci_node=zzz') })).toBe('No run matches metadata ci_node=zzz.');
  });
});

describe('pages of the runs list', () => {
  it('the oldest page starts at the last full page of 25, and a page number is clamped to the pages there are', () => {
    expect(lastPageOffset(20_000)).toBe(19_975);
    expect(lastPageOffset(20_001)).toBe(20_000);
    expect(lastPageOffset(25)).toBe(0);
    expect(lastPageOffset(0)).toBe(0);
    expect(pageOffset('1', 20_000)).toBe(0);
    expect(pageOffset('400', 20_000)).toBe(9_975);
    expect(pageOffset(' 800 ', 20_000)).toBe(19_975);
    expect(pageOffset('9999', 20_000)).toBe(19_975);
    expect(pageOffset('0', 20_000)).toBe(0);
    expect(pageOffset('', 20_000)).toBeNull();
    expect(pageOffset('2.5', 20_000)).toBeNull();
    expect(pageOffset('-3', 20_000)).toBeNull();
  });
});
