/** The Code2Wav decoder run in the calling thread, and what the reproduction-server tests measure of its audio. */
import { createHash } from 'node:crypto';
import { createModel, SILENCE_CODE } from '#server/repro/code2wav/kernels/model.ts';
import { fft } from '#server/repro/code2wav/kernels/fft.ts';
import { decodeBatch, type DecodeContext } from '#server/repro/code2wav/worker/decodeBatch.ts';
import type { DecodeItem, DecodeSettings } from '#server/repro/code2wav/worker/messages.ts';
import { createProgressBuffer, ProgressWriter } from '#server/repro/watchdog/progress.ts';

export const MODEL = 'openbmb/MiniCPM-o-4_5';
export const SETTINGS: DecodeSettings = { steps: 10, cfg: true, cfgRate: 0.7, mode: 'eager' };

/** A first window: 3 silence codes of context, then `n` codes derived from `salt`. */
export function windowCodes(salt: number, n = 25): Int32Array {
  const c = new Int32Array(3 + n).fill(SILENCE_CODE, 0, 3);
  for (let i = 0; i < n; i++) c[3 + i] = (salt * 7919 + i * 104729) % 6561;
  return c;
}

export function item(key: string, codes: Int32Array, chunkSeq = 0, lastChunk = true): DecodeItem {
  return { key, requestId: key, chunkSeq, cacheEpoch: 0, lastChunk, contextCodes: 3, codes };
}

/** Decodes in the calling thread, exactly as a worker does. */
export function localDecoder(seed = 0, model = MODEL) {
  const phases: Array<{ phase: string; details: Record<string, unknown> }> = [];
  const ctx: DecodeContext = {
    model: createModel(model),
    seed,
    progress: new ProgressWriter(createProgressBuffer()),
    states: new Map(),
    onPhase: (phase, details) => phases.push({ phase, details }),
  };
  let op = 1;
  return {
    ctx,
    phases,
    decode: (items: DecodeItem[], settings: DecodeSettings = SETTINGS) => decodeBatch(ctx, op++, items, settings, null),
  };
}

export const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** PCM16 samples of a mono WAV as floats. */
export function wavSamples(wav: Uint8Array): Float64Array {
  const v = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  const n = (wav.length - 44) / 2;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = v.getInt16(44 + 2 * i, true) / 32768;
  return out;
}

/** Average magnitude spectrum (1024-point frames) of a signal. */
export function spectrum(x: Float64Array, size = 1024): Float64Array {
  const mag = new Float64Array(size / 2);
  let frames = 0;
  for (let s = 0; s + size <= x.length; s += size) {
    const re = Float64Array.from(x.subarray(s, s + size));
    const im = new Float64Array(size);
    fft(re, im, false);
    for (let b = 0; b < size / 2; b++) mag[b] += Math.hypot(re[b], im[b]);
    frames++;
  }
  return mag.map((m) => m / Math.max(1, frames));
}

/** Cosine similarity of two spectra. */
export function similarity(a: Float64Array, b: Float64Array): number {
  let ab = 0,
    aa = 0,
    bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb);
}
