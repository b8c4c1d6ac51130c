/**
 * Seeded random numbers for the synthetic `random` dataset (prompt words and
 * lengths): the same seed gives the same prompts on every machine. Upstream
 * draws token ids with numpy, which cannot match without its tokenizer, so
 * this is a small fast generator of our own. Where vLLM's own draws can be
 * matched they are: the arrival schedule (numpyLegacy.ts) and the
 * Seed-TTS row order (pythonRandom.ts).
 */

/** xoshiro128** seeded through splitmix32; 32-bit arithmetic only, no BigInt. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = (Math.floor(seed) >>> 0) ^ 0x9e3779b9;
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 bits of precision. */
  random(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Integer uniform in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  /**
   * `out.length` draws of `int(lo, hi)`, the same numbers in the same order,
   * with the state in local variables: the fields hold values past V8's small
   * integers, so a draw through them boxes a number per step, and a
   * 1,024-word prompt per request made that a visible part of a run's CPU
   * (docs/design.md#request-body).
   */
  fillInts(out: Uint8Array | Uint16Array | Uint32Array, lo: number, hi: number): void {
    let s0 = this.s0 | 0;
    let s1 = this.s1 | 0;
    let s2 = this.s2 | 0;
    let s3 = this.s3 | 0;
    const span = hi - lo + 1;
    for (let i = 0; i < out.length; i++) {
      // Every value stays a signed 32-bit integer: `>>> 0` would make one past 2^31 (a double), which
      // V8 speculates against and then deoptimises on ("lost precision"), over and over.
      let x = Math.imul(s1, 5);
      const a = Math.imul((x << 7) | (x >>> 25), 9);
      let t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      x = Math.imul(s1, 5);
      const b = Math.imul((x << 7) | (x >>> 25), 9);
      t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      // random(): the top 27 bits of `a` and 26 of `b` (as unsigned: `>>>` reads the same bits).
      out[i] = lo + Math.floor((((a >>> 5) * 67108864 + (b >>> 6)) / 9007199254740992) * span);
    }
    // Signed here, unsigned after the other methods: every use of the state is bitwise, which reads the same bits.
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
