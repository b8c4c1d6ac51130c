/**
 * A stack frame's text as a peer sends it, bounded and read in linear time
 * (docs/design.md#peer-bounds, #stall-fingerprints). A frame's `function` and
 * `file` are at most FRAME_TEXT_MAX characters: the report schemas refuse a
 * longer one, and the producers here (py-spy's output, the repro server's
 * watchdog) cut theirs to it with the same functions, so a report they make
 * always passes. Python's qualified names and a venv's paths are far shorter;
 * only a native C++ template name reaches it, and what is kept still names it.
 * The parsing helpers scan from the end by hand: the regular expressions they
 * replace (`/(:\d+)+$/`, `/\s*\+\s*$/`) retried every start position, which
 * took seconds for one 60 KB line.
 */

/** Longest `function` or `file` a stack frame may carry. */
export const FRAME_TEXT_MAX = 512;

/** Put where a cut text lost its part. */
export const CUT_MARK = '…';

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** A function name within FRAME_TEXT_MAX: its head kept (the name's start says what it is), then CUT_MARK. */
export function capFunction(text: string): string {
  if (text.length <= FRAME_TEXT_MAX) return text;
  let end = FRAME_TEXT_MAX - CUT_MARK.length;
  // Never split a surrogate pair: half of one is a text no store can hold (shared/storage/storable.ts).
  if (isHigh(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end) + CUT_MARK;
}

/** A file path within FRAME_TEXT_MAX: CUT_MARK, then its tail kept (the base name the fingerprint reads). */
export function capFile(text: string): string {
  if (text.length <= FRAME_TEXT_MAX) return text;
  let start = text.length - (FRAME_TEXT_MAX - CUT_MARK.length);
  if (isLow(text.charCodeAt(start))) start++;
  return CUT_MARK + text.slice(start);
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const COLON = 58;

/** `text` without its position suffix (`x.py:12`, `x.ts:4:2`): every trailing `:digits` group, as `/(:\d+)+$/` would. */
export function withoutPosition(text: string): string {
  let end = text.length;
  for (;;) {
    let i = end;
    while (i > 0 && isDigit(text.charCodeAt(i - 1))) i--;
    if (i === end || i === 0 || text.charCodeAt(i - 1) !== COLON) return text.slice(0, end);
    end = i - 1;
  }
}

/** `text` without one trailing `+` and the blanks around it (`f +` in a native frame), as `/\s*\+\s*$/` would. */
export function withoutTrailingPlus(text: string): string {
  const t = text.trimEnd(); // trimEnd's blanks are exactly `\s`'s
  return t.endsWith('+') ? t.slice(0, -1).trimEnd() : text;
}
