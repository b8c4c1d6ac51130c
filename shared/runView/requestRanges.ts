/**
 * Sets of request indices as people write them and as URLs carry them:
 * `[0,1,2,3,4,7]` ↔ "0-4,7" in a link (`#/runs/ID?reqs=0-4,7`) and "#0–#4,
 * #7" in words. The run story links each range to the rows it names, so a
 * stalled batch can be shown alone and the view shared.
 */

/** At most this many indices from one URL: a pasted `reqs=0-999999999` must not allocate a billion numbers. */
export const MAX_LINKED_REQUESTS = 100_000;

/** Sorted, distinct indices as runs of consecutive ones: [[0,4],[7,7]]. */
export function toRuns(indices: readonly number[]): [number, number][] {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i === last[1] + 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

/** The URL form: "0-4,7". */
export function formatRanges(indices: readonly number[]): string {
  return toRuns(indices)
    .map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`))
    .join(',');
}

/** The words form: "#0–#4, #7". */
export function rangeWords(indices: readonly number[]): string {
  return toRuns(indices)
    .map(([a, b]) => (a === b ? `#${a}` : `#${a}–#${b}`))
    .join(', ');
}

/**
 * "0-4,7" → [0,1,2,3,4,7] (sorted, distinct); null for anything else, or for
 * more than `max` indices, so a bad link shows every request rather than a guess.
 */
export function parseRanges(text: string, max = MAX_LINKED_REQUESTS): number[] | null {
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(text)) return null;
  const pairs = text.split(',').map((part) => part.split('-').map(Number));
  let total = 0;
  for (const [a, b = a] of pairs) {
    if (b < a || !Number.isSafeInteger(b)) return null;
    total += b - a + 1;
    if (total > max) return null;
  }
  const out: number[] = [];
  for (const [a, b = a] of pairs) for (let i = a; i <= b; i++) out.push(i);
  return [...new Set(out)].sort((x, y) => x - y);
}
