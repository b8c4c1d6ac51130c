/**
 * CPython's `random.Random`, as vLLM-Omni's Seed-TTS dataset uses it:
 * `random.Random(seed).shuffle(rows)` decides the row order and
 * `random.seed(seed)` then `random.choice(rows)` per missing row the
 * oversampled rows (vLLM's maybe_oversample_requests). A port of
 * _randommodule.c's seeding and getrandbits and of random.py's _randbelow,
 * shuffle and choice, so the same --seed sends the same rows
 * in the same order as the nightly job (checked against CPython's own
 * output in test/fixtures/rng).
 */
import { MT19937 } from './mt19937.ts';

export class PythonRandom {
  private readonly mt: MT19937;

  /** `random.Random(seed)` for an integer seed (|seed| < 2^53 here). */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer (got ${seed})`);
    // CPython: the absolute value, as little-endian 32-bit words, at least one.
    let n = Math.abs(seed);
    const key: number[] = [];
    do {
      key.push(n % 2 ** 32);
      n = Math.floor(n / 2 ** 32);
    } while (n > 0);
    this.mt = MT19937.fromKey(key);
  }

  /** `random()`: [0, 1) from 53 bits. */
  random(): number {
    return this.mt.nextDouble();
  }

  /** `getrandbits(k)` for 0 < k ≤ 32. */
  getrandbits(k: number): number {
    if (!(Number.isInteger(k) && k > 0 && k <= 32))
      throw new RangeError(`getrandbits supports 1..32 bits here (got ${k})`);
    return this.mt.nextU32() >>> (32 - k);
  }

  /** `_randbelow(n)`: uniform in [0, n) by rejection on getrandbits(n.bit_length()). */
  randbelow(n: number): number {
    if (n <= 0) return 0;
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `shuffle(x)` in place: Fisher–Yates from the end, j = _randbelow(i + 1). */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const tmp = items[i];
      items[i] = items[j];
      items[j] = tmp;
    }
    return items;
  }

  /** `choice(seq)`: seq[_randbelow(len(seq))]. */
  choice<T>(seq: readonly T[]): T {
    return seq[this.randbelow(seq.length)];
  }
}
