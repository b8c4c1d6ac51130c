/**
 * Per-request caches kept on the worker that owns the request (the reason a
 * request's chunks always go to the same worker): the primed prompt
 * conditioning, the mel cache, and the vocoder's phase and held-back tail.
 */
import { encodeCodes } from '../kernels/encoder.ts';
import { CACHE_KEEP, MEL_BINS, PROMPT_FRAMES, SILENCE_CODE, VOCAB, type Code2WavModel } from '../kernels/model.ts';
import { hashInts, mulberry32 } from '../kernels/rng.ts';
import type { HiftState } from '../kernels/hift.ts';

export interface RequestState {
  cacheEpoch: number;
  nextChunkSeq: number;
  /** Speaker conditioning from the primed prompt, added to every frame's mu. */
  speaker: Float32Array;
  /** Prompt frames followed by the most recent decoded frames, frames × MEL_BINS. */
  melCache: Float32Array;
  hift: HiftState;
}

/** Prompt cache priming: encodes the (seeded) voice prompt plus a 3-code silence look-ahead. */
export function primeRequestState(model: Code2WavModel, seed: number, cacheEpoch: number): RequestState {
  const rand = mulberry32(hashInts(seed, 0x9e37));
  const promptCodes = new Int32Array(PROMPT_FRAMES / 2 + 3);
  for (let i = 0; i < PROMPT_FRAMES / 2; i++) promptCodes[i] = Math.floor(rand() * VOCAB);
  promptCodes.fill(SILENCE_CODE, PROMPT_FRAMES / 2);
  const mu = encodeCodes(model, promptCodes);
  const frames = mu.length / MEL_BINS;
  const speaker = new Float32Array(MEL_BINS);
  for (let f = 0; f < frames; f++) for (let m = 0; m < MEL_BINS; m++) speaker[m] += mu[f * MEL_BINS + m] / frames;
  for (let m = 0; m < MEL_BINS; m++) speaker[m] *= 0.3;
  return {
    cacheEpoch,
    nextChunkSeq: 0,
    speaker,
    melCache: mu.slice(0, PROMPT_FRAMES * MEL_BINS),
    hift: { phase: 0, tail: null },
  };
}

/** Frames the cache would hold after appending `frames`, and how many would be pruned. */
export function cachePlan(state: RequestState, frames: number): { cacheFrames: number; pruned: number } {
  const total = state.melCache.length / MEL_BINS + frames;
  const limit = PROMPT_FRAMES + CACHE_KEEP;
  return { cacheFrames: Math.min(total, limit), pruned: Math.max(0, total - limit) };
}

/** Cache concatenation and pruning: keeps the prompt frames plus the last CACHE_KEEP frames. */
export function materializeCache(state: RequestState, mel: Float32Array): void {
  const joined = new Float32Array(state.melCache.length + mel.length);
  joined.set(state.melCache);
  joined.set(mel, state.melCache.length);
  const frames = joined.length / MEL_BINS;
  const limit = PROMPT_FRAMES + CACHE_KEEP;
  if (frames <= limit) {
    state.melCache = joined;
    return;
  }
  const pruned = new Float32Array(limit * MEL_BINS);
  pruned.set(joined.subarray(0, PROMPT_FRAMES * MEL_BINS));
  pruned.set(joined.subarray((frames - CACHE_KEEP) * MEL_BINS), PROMPT_FRAMES * MEL_BINS);
  state.melCache = pruned;
}
