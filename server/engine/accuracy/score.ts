/**
 * Seed-TTS content scoring as seed-tts-eval's `run_wer.process_one` (what
 * vLLM-Omni's `process_one_official` runs; docs/design.md#accuracy-gate): strip
 * punctuation (zhon.hanzi.punctuation + Python's string.punctuation, keeping
 * `'`), lowercase English, put a space between every Chinese character, then
 * jiwer's word error rate: the word-level edit distance (S + D + I) over the
 * reference's word count. jiwer's default transform collapses runs of two or
 * more whitespace characters into one space, strips, and splits on " ".
 * Pure: the traditional → simplified conversion of Chinese hypotheses is the
 * caller's (it happens at recognition time upstream, see zhConvert.ts).
 */

/** Python's `string.punctuation`. */
const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** `zhon.hanzi.punctuation` (non-stops then stops), as zhon 2.x defines it. */
const HANZI_PUNCTUATION =
  '\uFF02\uFF03\uFF04\uFF05\uFF06\uFF07\uFF08\uFF09\uFF0A\uFF0B\uFF0C\uFF0D' +
  '\uFF0F\uFF1A\uFF1B\uFF1C\uFF1D\uFF1E\uFF20\uFF3B\uFF3C\uFF3D\uFF3E\uFF3F' +
  '\uFF40\uFF5B\uFF5C\uFF5D\uFF5E\uFF5F\uFF60' +
  '\uFF62\uFF63\uFF64' +
  '\u3000\u3001\u3003' +
  '\u3008\u3009\u300A\u300B\u300C\u300D\u300E\u300F\u3010\u3011' +
  '\u3014\u3015\u3016\u3017\u3018\u3019\u301A\u301B\u301C\u301D\u301E\u301F' +
  '\u3030' +
  '\u303E\u303F' +
  '\u2013\u2014' +
  '\u2018\u2019\u201B\u201C\u201D\u201E\u201F' +
  '\u2026\u2027' +
  '\uFE4F' +
  '\uFE51\uFE54' +
  '\u00B7' +
  '\uFF01\uFF1F\uFF61\u3002';

/** Removed characters; `'` is kept so "don't" stays one word. */
const REMOVED = new Set([...(HANZI_PUNCTUATION + ASCII_PUNCTUATION)].filter((c) => c !== "'"));

export type ScoringLang = 'en' | 'zh';

/** The language a locale is scored in, as upstream: `zh*` is Chinese, anything else English. */
export function scoringLang(locale: string): ScoringLang {
  return locale.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** Normalised text as `process_one` leaves it before jiwer. */
export function normalizeForWer(text: string, lang: ScoringLang): string {
  let out = '';
  for (const ch of text) if (!REMOVED.has(ch)) out += ch;
  out = out.replaceAll('  ', ' ');
  // Python iterates code points; so does for…of / spread.
  return lang === 'zh' ? [...out].join(' ') : out.toLowerCase();
}

/** jiwer 3.x `wer_default`: RemoveMultipleSpaces, Strip, ReduceToListOfListOfWords. */
export function jiwerWords(text: string): string[] {
  return text
    .replace(/\s\s+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w.length >= 1);
}

export interface WordErrors {
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  hits: number;
  /** Reference words (N = S + D + H). */
  referenceWords: number;
}

export class EmptyReferenceError extends Error {
  constructor() {
    super('one or more references are empty strings');
    this.name = 'EmptyReferenceError';
  }
}

/**
 * Word error rate of `hyp` against `ref` (word lists). The total S + D + I
 * is the Levenshtein distance; the split into S/D/I follows one minimal
 * alignment (substitutions preferred, as jiwer's editops do on ties).
 * An empty reference throws, as jiwer does; an empty hypothesis is all deletions.
 */
export function wordErrors(ref: readonly string[], hyp: readonly string[]): WordErrors {
  if (ref.length === 0) throw new EmptyReferenceError();
  const n = ref.length;
  const m = hyp.length;
  // dp[i][j]: edits turning ref[0..i) into hyp[0..j).
  const dp: Uint32Array[] = [];
  for (let i = 0; i <= n; i++) {
    const row = new Uint32Array(m + 1);
    row[0] = i;
    dp.push(row);
  }
  for (let j = 0; j <= m; j++) dp[0][j] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const sub = dp[i - 1][j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      dp[i][j] = Math.min(sub, dp[i - 1][j] + 1, dp[i][j - 1] + 1);
    }
  }
  let s = 0;
  let d = 0;
  let ins = 0;
  let h = 0;
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && dp[i][j] === dp[i - 1][j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) {
      if (ref[i - 1] === hyp[j - 1]) h++;
      else s++;
      i--;
      j--;
    } else if (i > 0 && dp[i][j] === dp[i - 1][j] + 1) {
      d++;
      i--;
    } else {
      ins++;
      j--;
    }
  }
  return {
    wer: (s + d + ins) / n,
    substitutions: s,
    deletions: d,
    insertions: ins,
    hits: h,
    referenceWords: n,
  };
}

export interface UtteranceScore extends WordErrors {
  referenceNormalized: string;
  hypothesisNormalized: string;
}

/** `process_one_official(hypo, truth, lang)`: normalise both, then jiwer's WER. */
export function scoreUtterance(reference: string, hypothesis: string, lang: ScoringLang): UtteranceScore {
  const referenceNormalized = normalizeForWer(reference, lang);
  const hypothesisNormalized = normalizeForWer(hypothesis, lang);
  return {
    ...wordErrors(jiwerWords(referenceNormalized), jiwerWords(hypothesisNormalized)),
    referenceNormalized,
    hypothesisNormalized,
  };
}

/** `math.fsum`: the correctly rounded sum (Shewchuk's partials, as CPython). */
export function fsum(values: Iterable<number>): number {
  const partials: number[] = [];
  for (let x of values) {
    let i = 0;
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[i++] = lo;
      x = hi;
    }
    partials.length = i;
    partials.push(x);
  }
  // Sum the partials from the top, with CPython's half-even correction.
  let n = partials.length;
  if (n === 0) return 0;
  let hi = partials[--n];
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = partials[--n];
    hi = x + y;
    const yr = hi - x;
    lo = y - yr;
    if (lo !== 0) break;
  }
  if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}

/** `statistics.fmean`: fsum / n, the mean of per-utterance values (not a corpus WER); null for none. */
export function fmean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return fsum(values) / values.length;
}

/** `statistics.median`: the middle value, or the mean of the two middle values; null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
