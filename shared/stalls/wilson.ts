/**
 * The 95 % Wilson score interval of a rate (Wilson 1927; Newcombe 1998, method 3):
 * the range a hang rate of `stalled` in `runs` is plausibly in. Chosen over
 * the normal approximation because CI samples are small and rates near 0 or
 * 1 (0 of 8 runs, 8 of 8): Wilson never leaves [0, 1] and never collapses to
 * a point, so "0 of 3" reads as "up to 56 %", not "0 %". Pure.
 */

/** The 97.5th percentile of the standard normal distribution: a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

export interface RateInterval {
  low: number;
  high: number;
}

/** The 95 % Wilson interval of `stalled` successes in `runs` trials; [0, 1] when there are no runs. */
export function wilsonInterval(stalled: number, runs: number, z = Z95): RateInterval {
  if (runs <= 0) return { low: 0, high: 1 };
  const p = stalled / runs;
  const z2 = z * z;
  const centre = p + z2 / (2 * runs);
  const spread = z * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs));
  const denom = 1 + z2 / runs;
  // Clamped: at p = 0 or 1 the bound is 0 or 1 in exact arithmetic, a rounding error away in floating point.
  return { low: Math.max(0, (centre - spread) / denom), high: Math.min(1, (centre + spread) / denom) };
}

/** A rate with its interval: what the board shows per node and per job. */
export function rateOf(
  stalled: number,
  runs: number,
): { runs: number; stalled: number; hangRate: number } & RateInterval {
  return { runs, stalled, hangRate: runs > 0 ? stalled / runs : 0, ...wilsonInterval(stalled, runs) };
}
