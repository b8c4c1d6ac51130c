/**
 * The arrival schedule: for each request, seconds after the benchmark clock
 * starts at which it arrives (and then waits for a concurrency slot).
 * Mirrors `vllm bench serve`'s get_request.
 */
import { NumpyRandomState } from '../random/numpyLegacy.ts';
import type { RampUp } from '../../../shared/config/runConfig.ts';

export type ArrivalSpec =
  | { mode: 'immediate' }
  | { mode: 'rate'; rate: number; burstiness: number; seed: number }
  | ({ mode: 'ramp-up'; burstiness: number; seed: number } & RampUp)
  | { mode: 'self-timed'; timestamps: number[] };

/** Offsets in seconds, non-decreasing, one per request. */
export function arrivalOffsets(n: number, spec: ArrivalSpec): number[] {
  switch (spec.mode) {
    case 'immediate':
      return new Array<number>(n).fill(0);
    case 'rate':
      return gammaOffsets(n, spec.rate, spec.burstiness, spec.seed);
    case 'ramp-up':
      return rampUpOffsets(n, spec);
    case 'self-timed':
      return selfTimedOffsets(n, spec.timestamps);
  }
}

/**
 * Gamma intervals with shape = burstiness and scale = 1/(rate·burstiness)
 * (burstiness 1 is Poisson, infinite burstiness is a constant 1/rate),
 * summed, then rescaled so the last arrival is exactly n/rate. Drawn from
 * numpy's legacy RNG seeded with `seed`, in vLLM's order, so the schedule is
 * the one `vllm bench serve --seed N` produces (to an ulp of libm).
 */
function gammaOffsets(n: number, rate: number, burstiness: number, seed: number): number[] {
  const out = new Array<number>(n);
  if (n === 0) return out;
  const rng = new NumpyRandomState(seed);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += interval(rng, rate, burstiness);
    out[i] = acc;
  }
  const target = n / rate;
  const factor = acc > 0 ? target / acc : 0;
  for (let i = 0; i < n; i++) out[i] *= factor;
  out[n - 1] = target;
  return out;
}

/**
 * Request i's rate under ramp-up (vLLM's _get_current_request_rate):
 * progress = i / max(n − 1, 1); linear start + (end − start)·progress,
 * exponential start·(end/start)^progress.
 */
export function rampUpRate(i: number, n: number, spec: RampUp): number {
  const progress = i / Math.max(n - 1, 1);
  if (spec.strategy === 'linear') return spec.startRps + (spec.endRps - spec.startRps) * progress;
  return spec.startRps * Math.pow(spec.endRps / spec.startRps, progress);
}

/** Intervals drawn at each request's ramp-up rate, summed, not rescaled (as vLLM). */
function rampUpOffsets(n: number, spec: Extract<ArrivalSpec, { mode: 'ramp-up' }>): number[] {
  const out = new Array<number>(n);
  const rng = new NumpyRandomState(spec.seed);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += interval(rng, rampUpRate(i, n, spec), spec.burstiness);
    out[i] = acc;
  }
  return out;
}

/** One gap at `rate`: Gamma(burstiness, 1/(rate·burstiness)) from numpy's stream, or 1/rate at infinite burstiness. */
function interval(rng: NumpyRandomState, rate: number, burstiness: number): number {
  return Number.isFinite(burstiness) ? rng.gamma(burstiness, 1 / (rate * burstiness)) : 1 / rate;
}

/** Each request's own timestamp (seconds from the start; missing means 0). */
function selfTimedOffsets(n: number, timestamps: number[]): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const t = timestamps[i];
    out[i] = Number.isFinite(t) && t > 0 ? t : 0;
  }
  return out;
}
