/**
 * numpy's legacy global RNG, as `vllm bench serve` uses it: `np.random.seed(
 * seed)` then `np.random.gamma(shape, scale)` per request for the arrival
 * intervals. A port of numpy's legacy-distributions.c (legacy_gauss,
 * legacy_standard_exponential, legacy_standard_gamma) over MT19937, so the
 * same --seed gives the same arrival schedule as vLLM (checked against
 * numpy's own draws in test/fixtures/rng).
 */
import { MT19937 } from './mt19937.ts';

export const NUMPY_MAX_SEED = 2 ** 32 - 1;

export class NumpyRandomState {
  private readonly mt: MT19937;
  private gauss = 0;
  private hasGauss = false;

  /** `np.random.seed(seed)`: an integer in [0, 2^32 − 1], as numpy requires. */
  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > NUMPY_MAX_SEED)
      throw new RangeError(`numpy seed must be an integer between 0 and 2**32 - 1 (got ${seed})`);
    this.mt = MT19937.fromSeed(seed);
  }

  /** `np.random.random_sample()`: [0, 1). */
  randomSample(): number {
    return this.mt.nextDouble();
  }

  /** `np.random.standard_normal()`: the polar method, returning f·x2 and keeping f·x1 for the next call. */
  standardNormal(): number {
    if (this.hasGauss) {
      this.hasGauss = false;
      const g = this.gauss;
      this.gauss = 0;
      return g;
    }
    let x1: number, x2: number, r2: number;
    do {
      x1 = 2 * this.mt.nextDouble() - 1;
      x2 = 2 * this.mt.nextDouble() - 1;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1 || r2 === 0);
    const f = Math.sqrt((-2 * Math.log(r2)) / r2);
    this.gauss = f * x1;
    this.hasGauss = true;
    return f * x2;
  }

  standardExponential(): number {
    return -Math.log(1 - this.mt.nextDouble());
  }

  /** legacy_standard_gamma: exponential at shape 1, Johnk-style rejection below 1, Marsaglia–Tsang above. */
  standardGamma(shape: number): number {
    if (shape === 1) return this.standardExponential();
    if (shape === 0) return 0;
    if (shape < 1) {
      for (;;) {
        const u = this.mt.nextDouble();
        const v = this.standardExponential();
        if (u <= 1 - shape) {
          const x = Math.pow(u, 1 / shape);
          if (x <= v) return x;
        } else {
          const y = -Math.log((1 - u) / shape);
          const x = Math.pow(1 - shape + shape * y, 1 / shape);
          if (x <= v + y) return x;
        }
      }
    }
    const b = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * b);
    for (;;) {
      let x: number, v: number;
      do {
        x = this.standardNormal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.mt.nextDouble();
      if (u < 1 - 0.0331 * (x * x) * (x * x)) return b * v;
      if (Math.log(u) < 0.5 * x * x + b * (1 - v + Math.log(v))) return b * v;
    }
  }

  /** `np.random.gamma(shape, scale)`. */
  gamma(shape: number, scale: number): number {
    if (!(shape >= 0) || !(scale >= 0)) throw new RangeError('gamma needs shape ≥ 0 and scale ≥ 0');
    return scale * this.standardGamma(shape);
  }
}
