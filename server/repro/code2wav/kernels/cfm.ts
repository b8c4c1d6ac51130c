/**
 * Conditional flow matching: Euler steps of a small velocity field from seeded
 * noise towards the encoder's conditioning. Classifier-free guidance doubles
 * the rows inside every step (conditioned rows plus unconditioned rows with
 * zero conditioning), then mixes them: v = (1+r)·v_cond − r·v_uncond.
 */
import { gaussian, hashInts, mulberry32 } from './rng.ts';
import { HIDDEN, MEL_BINS, type Code2WavModel } from './model.ts';

/** One batch row: the state being integrated and its conditioning, frames × MEL_BINS. */
export interface CfmRow {
  x: Float32Array;
  mu: Float32Array;
  frames: number;
}

/** Cosine schedule t_k = 1 − cos(k/N · π/2), as the real CFM uses. */
export function cosineSchedule(steps: number): Float64Array {
  const t = new Float64Array(steps + 1);
  for (let k = 0; k <= steps; k++) t[k] = 1 - Math.cos((k / steps) * (Math.PI / 2));
  return t;
}

/** Starting noise for a window; depends only on the seed and the chunk position, never on the batch. */
export function startNoise(seed: number, chunkSeq: number, frames: number): Float32Array {
  const g = gaussian(mulberry32(hashInts(seed, chunkSeq, 0x5eed)));
  const x = new Float32Array(frames * MEL_BINS);
  for (let i = 0; i < x.length; i++) x[i] = g();
  return x;
}

/** Velocity for one frame into `out`; `mu` null means the unconditioned branch. */
function velocity(
  model: Code2WavModel,
  x: Float32Array,
  xo: number,
  mu: Float32Array | null,
  mo: number,
  t: number,
  hidden: Float32Array,
  out: Float32Array,
): void {
  const { w1, b1, w2 } = model;
  const stride = 2 * MEL_BINS + 1;
  for (let h = 0; h < HIDDEN; h++) {
    const w = h * stride;
    let acc = b1[h] + w1[w + 2 * MEL_BINS] * t;
    for (let m = 0; m < MEL_BINS; m++) acc += w1[w + m] * x[xo + m];
    if (mu) {
      const wm = w + MEL_BINS;
      for (let m = 0; m < MEL_BINS; m++) acc += w1[wm + m] * mu[mo + m];
    }
    hidden[h] = Math.tanh(acc);
  }
  for (let m = 0; m < MEL_BINS; m++) {
    let acc = (mu ? mu[mo + m] : 0) - x[xo + m];
    const w = m * HIDDEN;
    for (let h = 0; h < HIDDEN; h++) acc += w2[w + h] * hidden[h];
    out[m] = acc;
  }
}

/**
 * One Euler step over every row. With CFG the velocity is evaluated for 2×rows
 * (the doubled batch); without it, once per row. Returns the rows evaluated.
 */
export function cfmStep(
  model: Code2WavModel,
  rows: CfmRow[],
  t: number,
  dt: number,
  cfg: boolean,
  cfgRate: number,
): number {
  const hidden = new Float32Array(HIDDEN);
  const vc = new Float32Array(MEL_BINS);
  const vu = new Float32Array(MEL_BINS);
  let evaluated = 0;
  for (const row of rows) {
    // Velocities are computed for the whole row before it is updated (explicit Euler).
    const v = new Float32Array(row.frames * MEL_BINS);
    for (let f = 0; f < row.frames; f++) {
      const o = f * MEL_BINS;
      velocity(model, row.x, o, row.mu, o, t, hidden, vc);
      if (cfg) {
        velocity(model, row.x, o, null, 0, t, hidden, vu);
        for (let m = 0; m < MEL_BINS; m++) v[o + m] = (1 + cfgRate) * vc[m] - cfgRate * vu[m];
      } else {
        v.set(vc, o);
      }
    }
    for (let i = 0; i < v.length; i++) row.x[i] += dt * v[i];
    evaluated += cfg ? 2 : 1;
  }
  return evaluated;
}
