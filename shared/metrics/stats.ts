/**
 * numpy-compatible statistics. vLLM-Omni aggregates with numpy, so to match
 * its numbers to the last bit where possible we reproduce numpy's algorithms,
 * not just their maths: pairwise summation for `np.mean`, `np.median` as the
 * mean of the middle pair, and `np.percentile`'s default "linear" method with
 * numpy's two-sided lerp. Pure functions; no Node or DOM globals.
 */

const BLOCK = 128;

/** numpy's `pairwise_sum` over `a[from, from + n)`. */
function pairwiseSum(a: ArrayLike<number>, from: number, n: number): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[from + i];
    return res;
  }
  if (n <= BLOCK) {
    const r = [a[from], a[from + 1], a[from + 2], a[from + 3], a[from + 4], a[from + 5], a[from + 6], a[from + 7]];
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j] += a[from + i + j];
    }
    let res = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < n; i++) res += a[from + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, from, n2) + pairwiseSum(a, from + n2, n - n2);
}

/** `np.sum` of a 1-D float array: the reduction starts from the identity 0 and sums every element pairwise. */
export function npSum(values: ArrayLike<number>): number {
  return pairwiseSum(values, 0, values.length);
}

/** `np.mean`; NaN for an empty list (callers omit the key instead of writing it). */
export function mean(values: ArrayLike<number>): number {
  return values.length === 0 ? Number.NaN : npSum(values) / values.length;
}

function sortedCopy(values: readonly number[]): number[] {
  return Float64Array.from(values).sort() as unknown as number[];
}

/** `np.median`. */
export function median(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : medianSorted(sortedCopy(values));
}

/** `np.median` of values already sorted ascending (a run's ITLs are sorted once for every statistic). */
export function medianSorted(s: ArrayLike<number>): number {
  const n = s.length;
  if (n === 0) return Number.NaN;
  const mid = n >> 1;
  return n % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** numpy's `_lerp`: evaluated from the nearer end so the result is monotonic and exact at the ends. */
function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/** Percentile of already-sorted values, numpy's default linear interpolation; `p` in [0, 100]. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const q = p / 100;
  const virtual = (n - 1) * q;
  const lo = Math.max(0, Math.min(n - 1, Math.floor(virtual)));
  const hi = Math.min(n - 1, lo + 1);
  return lerp(sorted[lo], sorted[hi], virtual - lo);
}

/** `np.percentile(values, p)` (the input need not be sorted). */
export function percentile(values: readonly number[], p: number): number {
  return percentileSorted(sortedCopy(values), p);
}

/** The key label of a percentile: `99` for 99.0, `99.9` for 99.9 (vLLM's `_p_label`). */
export function percentileLabel(p: number): string {
  return Math.abs(p - Math.round(p)) < 1e-9 ? String(Math.round(p)) : String(p);
}

/**
 * vLLM's `mean_<name>`, `median_<name>` and `p<P>_<name>` of `values` by numpy's rules, each times `scale` (vLLM
 * scales the statistic of seconds, not the seconds: `np.mean(e2els) * 1000`), written into `out` in that order.
 */
export function writeStatKeys(
  out: Record<string, number>,
  name: string,
  values: Float64Array,
  percentiles: readonly number[],
  scale = 1,
): void {
  const sorted = values.slice().sort();
  out[`mean_${name}`] = mean(values) * scale;
  out[`median_${name}`] = medianSorted(sorted) * scale;
  for (const p of percentiles) out[`p${percentileLabel(p)}_${name}`] = percentileSorted(sorted, p) * scale;
}
