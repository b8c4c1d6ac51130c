/**
 * The synthetic Code2Wav "checkpoint": fixed weights drawn from a model seed.
 * Shapes mirror the real stage at a much smaller scale (S3 codec vocabulary
 * of 6561, 25 Hz codes → 50 Hz mel, 24 kHz audio with a 480-sample hop), so
 * the cost scales with frames, batch, steps and CFG the way the real one does.
 */
import { gaussian, hashString, mulberry32 } from './rng.ts';

export const VOCAB = 6561;
/** Silence/pad code used as left context of the first window. */
export const SILENCE_CODE = 4218;
export const EMBED_DIM = 32;
export const MEL_BINS = 40;
export const HIDDEN = 48;
export const SAMPLE_RATE = 24000;
/** Mel frames per codec code (25 Hz codes → 50 Hz mel). */
export const MEL_PER_CODE = 2;
/** Audio samples per mel frame (HiFT hop). */
export const HOP = 480;
/** 160 ms crossfade between consecutive chunks of one request. */
export const CROSSFADE = 3840;
/** Prompt frames kept at the head of the mel cache; the cache keeps this plus the last 100 frames. */
export const PROMPT_FRAMES = 6;
export const CACHE_KEEP = 100;

export interface Code2WavModel {
  embedding: Float32Array; // VOCAB × EMBED_DIM
  conv: Float32Array; // EMBED_DIM(out) × EMBED_DIM(in) × 3
  convBias: Float32Array; // EMBED_DIM
  proj: Float32Array; // MEL_BINS × EMBED_DIM
  /** Velocity field input weights: HIDDEN × (2·MEL_BINS + 1) over [x, mu, t]. */
  w1: Float32Array;
  b1: Float32Array; // HIDDEN
  w2: Float32Array; // MEL_BINS × HIDDEN
}

function fill(n: number, scale: number, g: () => number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = g() * scale;
  return a;
}

/** Builds the weights for a model name; the same name always gives the same weights. */
export function createModel(modelName: string): Code2WavModel {
  const g = gaussian(mulberry32(hashString(modelName)));
  return {
    embedding: fill(VOCAB * EMBED_DIM, 1, g),
    conv: fill(EMBED_DIM * EMBED_DIM * 3, 1 / Math.sqrt(EMBED_DIM * 3), g),
    convBias: fill(EMBED_DIM, 0.1, g),
    proj: fill(MEL_BINS * EMBED_DIM, 1 / Math.sqrt(EMBED_DIM), g),
    w1: fill(HIDDEN * (2 * MEL_BINS + 1), 1 / Math.sqrt(2 * MEL_BINS + 1), g),
    b1: fill(HIDDEN, 0.1, g),
    w2: fill(MEL_BINS * HIDDEN, 0.5 / Math.sqrt(HIDDEN), g),
  };
}
