import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  fmean,
  fsum,
  jiwerWords,
  median,
  normalizeForWer,
  scoreUtterance,
  scoringLang,
  wordErrors,
} from '#server/engine/accuracy/score.ts';
import { toSimplified } from '#server/engine/accuracy/zhConvert.ts';

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/wer/wer_cases.json', import.meta.url), 'utf8')) as {
  cases: { lang: 'en' | 'zh'; reference: string; hypothesis: string; wer: number }[];
  mean: number;
  median: number;
};

describe('seed-tts-eval scoring, hand-computed', () => {
  it('counts a substitution, a deletion and an insertion over the reference words', () => {
    // ref: the cat sat on the mat (6); hyp: the black dog sat on mat → black inserted (I), cat→dog (S), the deleted (D) → 3/6
    expect(scoreUtterance('The cat sat on the mat.', 'the black dog sat on mat', 'en')).toMatchObject({
      substitutions: 1,
      deletions: 1,
      insertions: 1,
      hits: 4,
      wer: 3 / 6,
    });
    expect(wordErrors(['a', 'b'], ['a', 'b']).wer).toBe(0);
  });

  it('insertions alone can push WER above 1', () => {
    expect(scoreUtterance('Hi.', 'hi there my friend', 'en').wer).toBe(3);
  });

  it('deletions alone', () => {
    expect(scoreUtterance('one two three four', 'one four', 'en')).toMatchObject({ deletions: 2, wer: 0.5 });
  });

  it('substitutions alone', () => {
    expect(scoreUtterance('red green blue', 'red grey blew', 'en')).toMatchObject({ substitutions: 2, wer: 2 / 3 });
  });

  it('an empty hypothesis is all deletions (WER 1); an empty reference cannot be scored', () => {
    expect(scoreUtterance('The cat sat.', '', 'en')).toMatchObject({ deletions: 3, wer: 1 });
    expect(scoreUtterance('The cat sat.', '...', 'en').wer).toBe(1);
    expect(() => scoreUtterance('?!', 'anything', 'en')).toThrow(/empty/);
  });

  it('removes ASCII and CJK punctuation and lowercases English', () => {
    expect(normalizeForWer('Hello, World! (Yes) \u201cQuoted\u201d \u2014 end\u2026', 'en')).toBe(
      'hello world yes quoted end', // the double space left by "” —" collapses, as run_wer's replace does
    );
    expect(scoreUtterance('Hello, World!', 'hello world', 'en').wer).toBe(0);
  });

  it("keeps ASCII apostrophes, so don't and dont differ; a typographic apostrophe is removed", () => {
    expect(normalizeForWer("Don't", 'en')).toBe("don't");
    expect(scoreUtterance("I don't know", 'i dont know', 'en').wer).toBeCloseTo(1 / 3, 15);
    expect(normalizeForWer('don\u2019t', 'en')).toBe('dont');
  });

  it('scores Chinese on characters, without punctuation', () => {
    expect(normalizeForWer('今天，天气好。', 'zh')).toBe('今 天 天 气 好');
    // 今天天气很好 (6) vs 今天气很好: one character deleted → 1/6
    expect(scoreUtterance('今天天气很好。', '今天气很好', 'zh')).toMatchObject({ deletions: 1, wer: 1 / 6 });
  });

  it('turns a traditional hypothesis into simplified with the OpenCC tables before scoring', async () => {
    const hyp = await toSimplified('語音識別測試，這是繁體中文。');
    expect(hyp).toBe('语音识别测试，这是繁体中文。');
    expect(scoreUtterance('语音识别测试，这是繁体中文。', hyp, 'zh').wer).toBe(0);
    // Without the conversion 7 of the 12 characters differ (語識別測試這體).
    expect(scoreUtterance('语音识别测试，这是繁体中文。', '語音識別測試，這是繁體中文。', 'zh').wer).toBeCloseTo(
      7 / 12,
      15,
    );
  });

  it('splits words as jiwer does: runs of whitespace collapse, edges strip', () => {
    expect(jiwerWords('  a  b   c ')).toEqual(['a', 'b', 'c']);
  });

  it('locales: zh* is Chinese, everything else English', () => {
    expect([scoringLang('zh'), scoringLang('zh-CN'), scoringLang('en'), scoringLang('fr')]).toEqual([
      'zh',
      'zh',
      'en',
      'en',
    ]);
  });

  it('mean and median as statistics.fmean / statistics.median (correctly rounded sum)', () => {
    expect(fmean([])).toBeNull();
    expect(median([])).toBeNull();
    expect(median([0.5, 0, 1])).toBe(0.5);
    expect(median([0.4, 0, 1, 0.2])).toBeCloseTo(0.3, 15);
    expect(fsum([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1])).toBe(1); // naive summation gives 0.9999999999999999
    expect(fsum([1e100, 1, -1e100, 1])).toBe(2);
  });
});

describe('against the independent rapidfuzz fixture', () => {
  it('gives the same per-utterance WER for every case, and the same mean and median', () => {
    const got = fixture.cases.map((c) => scoreUtterance(c.reference, c.hypothesis, c.lang).wer);
    expect(got).toEqual(fixture.cases.map((c) => c.wer));
    expect(fmean(got)).toBe(fixture.mean);
    expect(median(got)).toBe(fixture.median);
  });
});
