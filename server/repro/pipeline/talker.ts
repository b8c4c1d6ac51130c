/**
 * Stage 1, the talker, and the stage-1 → stage-2 chunker. The talker turns
 * each text token into codec codes (25 Hz of audio, deterministic for the
 * token and seed). The chunker forms Code2Wav windows the way vLLM-Omni's
 * async-chunk connector does: 25 new codes with 3 codes of left context (the
 * first window uses 3 silence codes), the remainder as the last window.
 */
import { hashInts, hashString, mulberry32 } from '../code2wav/kernels/rng.ts';
import { SILENCE_CODE, VOCAB } from '../code2wav/kernels/model.ts';

export const CHUNK_CODES = 25;
export const CONTEXT_CODES = 3;

export function talkerCodes(token: string, tokenIndex: number, seed: number, count: number): number[] {
  const rand = mulberry32(hashInts(seed, tokenIndex, hashString(token)));
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(Math.floor(rand() * VOCAB));
  return out;
}

export interface CodeWindow {
  chunkSeq: number;
  lastChunk: boolean;
  /** CONTEXT_CODES of context, then the new codes. */
  codes: Int32Array;
}

export class CodeChunker {
  private pending: number[] = [];
  private context: number[] = [SILENCE_CODE, SILENCE_CODE, SILENCE_CODE];
  private seq = 0;
  total = 0;

  /**
   * Adds codes; returns the windows that are complete. A full window is held
   * until a further code arrives, so the final window is always flagged last.
   */
  push(codes: number[]): CodeWindow[] {
    this.pending.push(...codes);
    this.total += codes.length;
    const out: CodeWindow[] = [];
    while (this.pending.length > CHUNK_CODES) out.push(this.take(CHUNK_CODES, false));
    return out;
  }

  /** The request finished: whatever remains is the last window (null if nothing remains). */
  finish(): CodeWindow | null {
    return this.pending.length > 0 ? this.take(this.pending.length, true) : null;
  }

  private take(n: number, last: boolean): CodeWindow {
    const fresh = this.pending.splice(0, n);
    const codes = Int32Array.from([...this.context, ...fresh]);
    this.context = [...this.context, ...fresh].slice(-CONTEXT_CODES);
    return { chunkSeq: this.seq++, lastChunk: last, codes };
  }
}
