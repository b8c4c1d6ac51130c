/**
 * Encoder: code embedding → one 3-tap convolution with tanh → projection to
 * mel bins → ×2 upsampling (25 Hz codes to 50 Hz frames). Returns the
 * conditioning `mu` for every frame of the window, context included.
 */
import { EMBED_DIM, MEL_BINS, MEL_PER_CODE, VOCAB, type Code2WavModel } from './model.ts';

export function encodeCodes(model: Code2WavModel, codes: Int32Array): Float32Array {
  const n = codes.length;
  const emb = new Float32Array(n * EMBED_DIM);
  for (let i = 0; i < n; i++) {
    const c = ((codes[i] % VOCAB) + VOCAB) % VOCAB;
    emb.set(model.embedding.subarray(c * EMBED_DIM, (c + 1) * EMBED_DIM), i * EMBED_DIM);
  }
  const hid = new Float32Array(n * EMBED_DIM);
  for (let i = 0; i < n; i++) {
    for (let o = 0; o < EMBED_DIM; o++) {
      let acc = model.convBias[o];
      for (let k = 0; k < 3; k++) {
        const p = i + k - 1;
        if (p < 0 || p >= n) continue;
        const w = o * EMBED_DIM * 3;
        for (let c = 0; c < EMBED_DIM; c++) acc += model.conv[w + c * 3 + k] * emb[p * EMBED_DIM + c];
      }
      hid[i * EMBED_DIM + o] = Math.tanh(acc);
    }
  }
  const perCode = new Float32Array(n * MEL_BINS);
  for (let i = 0; i < n; i++) {
    for (let m = 0; m < MEL_BINS; m++) {
      let acc = 0;
      for (let c = 0; c < EMBED_DIM; c++) acc += model.proj[m * EMBED_DIM + c] * hid[i * EMBED_DIM + c];
      perCode[i * MEL_BINS + m] = acc;
    }
  }
  // Linear-interpolating upsampler: frame f sits at code position f/2.
  const frames = n * MEL_PER_CODE;
  const mu = new Float32Array(frames * MEL_BINS);
  for (let f = 0; f < frames; f++) {
    const pos = f / MEL_PER_CODE;
    const i0 = Math.floor(pos);
    const i1 = Math.min(i0 + 1, n - 1);
    const a = pos - i0;
    for (let m = 0; m < MEL_BINS; m++) {
      mu[f * MEL_BINS + m] = (1 - a) * perCode[i0 * MEL_BINS + m] + a * perCode[i1 * MEL_BINS + m];
    }
  }
  return mu;
}
