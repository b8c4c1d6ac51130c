/**
 * A stack frame's text is read in time linear in its length, after a length cap (docs/design.md#peer-bounds):
 * the shapes that made the old `/(:\d+)+$/` and `/\s*\+\s*$/` quadratic, at 200 KB, cost a small multiple of one
 * pass over the text (the old expressions took tens of seconds); the hand-written scans do what the expressions
 * did on any text; a frame longer than the cap gets the fingerprint of its cut form, and a normal one is untouched.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';
import {
  CUT_MARK,
  FRAME_TEXT_MAX,
  capFile,
  capFunction,
  withoutPosition,
  withoutTrailingPlus,
} from '#shared/stalls/frameText.ts';
import { costRatio } from '#test/helpers/linearTime.ts';

const N = 200_000;
/** `:1:1:…:1x` — every `:` started a match of `(:\d+)+$` that ran to the end. */
const COLONS = ':1'.repeat(N / 2) + 'x';
/** `f      …x` — every blank started a match of `\s*\+\s*$` that ran to the end. */
const BLANKS = 'f' + ' '.repeat(N) + 'x';
/** Linear means a small multiple of one pass; the quadratic expressions were ~10,000×. */
const LINEAR = 50;

describe('frame text is parsed in linear time', () => {
  it.each([
    ['withoutPosition, `:1` × 100,000', COLONS, withoutPosition],
    ['withoutPosition, `:1` × 100,000 (all stripped)', COLONS.slice(0, -1), withoutPosition],
    ['withoutTrailingPlus, 200,000 blanks', BLANKS, withoutTrailingPlus],
    ['withoutTrailingPlus, 200,000 blanks then +', BLANKS.slice(0, -1) + '+', withoutTrailingPlus],
  ])('%s', (_name, text, fn) => {
    expect(costRatio(text, fn)).toBeLessThan(LINEAR);
  });

  it('a 200 KB hostile function or file costs the fingerprint no more than reading it', () => {
    for (const frame of [
      { function: 'work', file: `/a/x.py${COLONS}` },
      { function: BLANKS, file: 'x.py' },
      { function: `${BLANKS}+`, file: `x.py${COLONS.slice(0, -1)}` },
    ]) {
      const text = frame.function + frame.file;
      expect(costRatio(text, () => stallFingerprint('hift', [frame]))).toBeLessThan(LINEAR);
    }
  });

  it('strips exactly what the regular expressions stripped', () => {
    const pieces = fc.constantFrom(':', '1', '9', 'a', '+', ' ', '\t', '\u00a0', '\n', 'x', '.py');
    const text = fc.array(pieces, { maxLength: 12 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(withoutPosition(t)).toBe(t.replace(/(:\d+)+$/, ''));
        expect(withoutTrailingPlus(t)).toBe(t.replace(/\s*\+\s*$/, ''));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('frame text is cut to FRAME_TEXT_MAX', () => {
  it('keeps a function name’s head and a path’s tail, marked, and never splits a surrogate pair', () => {
    const fn = 'a'.repeat(FRAME_TEXT_MAX - 2) + '😀' + 'b'.repeat(50);
    const cutFn = capFunction(fn);
    expect(cutFn).toHaveLength(FRAME_TEXT_MAX - 1); // the pair would have straddled the cut: left out whole
    expect(cutFn.endsWith('a' + CUT_MARK)).toBe(true);
    const path = '/d'.repeat(1000) + '/😀' + 'c'.repeat(FRAME_TEXT_MAX - 3) + '/hift.py:12';
    const cutPath = capFile(path);
    expect(cutPath.length).toBeLessThanOrEqual(FRAME_TEXT_MAX);
    expect(cutPath.startsWith(CUT_MARK)).toBe(true);
    expect(cutPath.endsWith('/hift.py:12')).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(cutPath + cutFn)).toBe(false);
    // Cutting twice is cutting once: a report cut by its producer fingerprints like the uncut one.
    expect(capFunction(cutFn)).toBe(cutFn);
    expect(capFile(cutPath)).toBe(cutPath);
  });

  it('a frame longer than the cap has the fingerprint of its cut form; one within it is not changed', () => {
    const long = { function: 'decode_' + 'x'.repeat(5000), file: '/v'.repeat(3000) + '/hift.py:3' };
    const cut = { function: capFunction(long.function), file: capFile(long.file) };
    expect(cut.function).not.toBe(long.function);
    expect(stallFingerprint('hift', [long])).toEqual(stallFingerprint('hift', [cut]));
    expect(stallFingerprint('hift', [cut]).frames[0]).toBe(`${cut.function} (hift.py)`);
    const normal = { function: 'f'.repeat(FRAME_TEXT_MAX), file: '/p/' + 'g'.repeat(FRAME_TEXT_MAX - 6) + '.py' };
    expect(capFunction(normal.function)).toBe(normal.function);
    expect(capFile(normal.file)).toBe(normal.file);
    expect(stallFingerprint('hift', [normal]).frames[0]).toBe(
      `${normal.function} (${'g'.repeat(FRAME_TEXT_MAX - 6)}.py)`,
    );
  });
});
