/** A serialized result cut into parts stored one per turn of the event loop (both stores keep them in run_results). */

/** Characters per stored result part: one write of ~1 MB takes a few ms (a 28 MB one took ~100 ms). */
export const RESULT_PART_CHARS = 1 << 20;

/** Cuts serialized JSON into parts of at most `max` UTF-16 units, never between the two halves of a surrogate pair. */
export function resultParts(text: string, max = RESULT_PART_CHARS): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + max);
    const c = text.charCodeAt(end - 1);
    if (end < text.length && c >= 0xd800 && c <= 0xdbff && end - 1 > at) end--;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}
