/**
 * The Mersenne Twister MT19937 (Matsumoto & Nishimura, 1998), the generator
 * behind numpy's legacy global RNG (`np.random.seed`) and CPython's
 * `random.Random`. The two differ only in how an integer seed becomes the
 * state: numpy uses `init_genrand(seed)`, CPython `init_by_array(words of
 * |seed|)`. 32-bit arithmetic with Math.imul, no BigInt.
 */
const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;

export class MT19937 {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  /** numpy's `np.random.seed(s)` for an integer 0 ≤ s < 2^32 (mt19937_seed = init_genrand). */
  static fromSeed(seed: number): MT19937 {
    const g = new MT19937();
    g.initGenrand(seed >>> 0);
    return g;
  }

  /** CPython's seeding from a key of 32-bit words (init_by_array). */
  static fromKey(key: readonly number[]): MT19937 {
    const g = new MT19937();
    g.initGenrand(19650218);
    const mt = g.mt;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (mt[i] ^ Math.imul(prev, 1566083941)) - i;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000; // MSB is 1, assuring a non-zero initial array
    return g;
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = Math.imul(1812433253, prev) + i;
    }
    this.mti = N;
  }

  /** Next unsigned 32-bit output. */
  nextU32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      let y: number;
      for (; kk < N - M; kk++) {
        y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      y = (mt[N - 1] & UPPER) | (mt[0] & LOWER);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** A double in [0, 1) from 53 bits, as both numpy (random_sample) and CPython (random()) build it. */
  nextDouble(): number {
    const a = this.nextU32() >>> 5;
    const b = this.nextU32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }
}
