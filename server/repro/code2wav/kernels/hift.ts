/**
 * HiFT-style source-filter vocoder. A harmonic source (f0 and harmonic
 * amplitudes read from the mel frames, phase carried across chunks) is
 * filtered frame by frame in the frequency domain — forward FFT, a spectral
 * envelope from the mel, inverse FFT — and overlap-added with a periodic Hann
 * window (hop 480, window 960, which sums to one). Non-final chunks
 * synthesize 160 ms past their end; that tail is held back and crossfaded
 * into the head of the next chunk, so a request's chunks join seamlessly and
 * add up to exactly 960 samples per code.
 */
import { fft } from './fft.ts';
import { gaussian, hashInts, mulberry32 } from './rng.ts';
import { CROSSFADE, HOP, MEL_BINS, SAMPLE_RATE } from './model.ts';

const WIN = 2 * HOP;
const NFFT = 1024;
const HARMONICS = 6;
const EXT_FRAMES = CROSSFADE / HOP;

/** What HiFT keeps per request between chunks (the real `hift_cache`). */
export interface HiftState {
  /** Harmonic phase at sample −HOP of the next chunk. */
  phase: number;
  /** The held-back 160 ms tail, crossfaded into the next chunk. */
  tail: Float32Array | null;
}

const hann = (() => {
  const w = new Float64Array(WIN);
  for (let i = 0; i < WIN; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / WIN);
  return w;
})();

const clip = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** Synthesizes `frames` mel frames into frames·HOP samples; updates `state` in place. */
export function synthesize(
  mel: Float32Array,
  frames: number,
  state: HiftState,
  lastChunk: boolean,
  seed: number,
  chunkSeq: number,
): Float32Array {
  const out = frames * HOP;
  if (frames === 0) {
    const tail = state.tail;
    state.tail = null;
    return lastChunk || !tail ? new Float32Array(0) : tail;
  }
  const total = frames + (lastChunk ? 0 : EXT_FRAMES);
  const span = total * HOP;
  const melAt = (f: number, m: number) => mel[clip(f, 0, frames - 1) * MEL_BINS + m];

  // Per-frame f0 and harmonic amplitudes, read from the mel once per frame.
  const f0 = new Float64Array(total + 2);
  const amp = new Float64Array((total + 2) * HARMONICS);
  for (let f = -1; f <= total; f++) {
    f0[f + 1] = 90 + 160 / (1 + Math.exp(-(melAt(f, 0) + melAt(f, 1))));
    for (let h = 1; h <= HARMONICS; h++)
      amp[(f + 1) * HARMONICS + h - 1] = (0.3 * Math.exp(0.3 * clip(melAt(f, h + 1), -3, 3))) / h;
  }
  // Harmonic source over samples [−HOP, span + HOP); sin(h·φ) by the Chebyshev recurrence.
  const src = new Float64Array(span + 2 * HOP);
  const noise = gaussian(mulberry32(hashInts(seed, chunkSeq, 0x41f7)));
  let phase = state.phase;
  let nextPhase = phase;
  for (let j = 0; j < src.length; j++) {
    if (j === out) nextPhase = phase;
    const fi = Math.min(total + 1, Math.floor(j / HOP));
    phase += (2 * Math.PI * f0[fi]) / SAMPLE_RATE;
    if (phase > 2 * Math.PI * 1e4) phase -= 2 * Math.PI * 1e4;
    const s1 = Math.sin(phase);
    const c2 = 2 * Math.cos(phase);
    let prev = 0;
    let cur = s1;
    let s = 0;
    const a = fi * HARMONICS;
    for (let h = 0; h < HARMONICS; h++) {
      s += amp[a + h] * cur;
      const next = c2 * cur - prev;
      prev = cur;
      cur = next;
    }
    src[j] = s + 0.01 * noise();
  }
  state.phase = nextPhase;

  // Frequency-domain filtering with overlap-add.
  const ola = new Float64Array(span + 2 * HOP);
  const re = new Float64Array(NFFT);
  const im = new Float64Array(NFFT);
  for (let k = 0; k <= total; k++) {
    const base = k * HOP;
    re.fill(0);
    im.fill(0);
    for (let i = 0; i < WIN; i++) re[i] = src[base + i] * hann[i];
    fft(re, im, false);
    for (let b = 0; b <= NFFT / 2; b++) {
      const m = Math.min(MEL_BINS - 1, Math.floor((b / (NFFT / 2 + 1)) * MEL_BINS));
      const g = Math.exp(0.25 * clip(melAt(k, m), -4, 4));
      re[b] *= g;
      im[b] *= g;
      if (b > 0 && b < NFFT / 2) {
        re[NFFT - b] = re[b];
        im[NFFT - b] = -im[b];
      }
    }
    fft(re, im, true);
    for (let i = 0; i < WIN; i++) ola[base + i] += re[i];
  }

  const y = new Float32Array(span);
  for (let i = 0; i < span; i++) y[i] = Math.tanh(0.6 * ola[HOP + i]);
  if (state.tail) {
    const xf = Math.min(CROSSFADE, state.tail.length, out);
    for (let i = 0; i < xf; i++) {
      const a = 0.5 - 0.5 * Math.cos((Math.PI * (i + 0.5)) / xf);
      y[i] = state.tail[i] * (1 - a) + y[i] * a;
    }
  }
  state.tail = lastChunk ? null : y.slice(out, out + CROSSFADE);
  return y.subarray(0, out);
}
