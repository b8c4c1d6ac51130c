/**
 * The storage under the engine's request table (docs/design.md#memory): one
 * number per request in chunks allocated on first use, so a column nobody
 * wrote (the audio columns of a text run, the error of a run without
 * errors) costs nothing, and whole counts take the smallest array that holds
 * them; and append-only blocks that pack variable-length values (ITL lists,
 * text) one after another.
 */

/** Requests per chunk of a column: small enough that a widened or unused chunk costs little. */
export const CHUNK = 4096;

type Chunk = Float64Array | Uint32Array | Uint16Array | Uint8Array;

/** The widest whole number each array kind holds; past the last, a chunk holds float64. */
const WIDTHS: { max: number; make: (n: number) => Chunk }[] = [
  { max: 0xff, make: (n) => new Uint8Array(n) },
  { max: 0xffff, make: (n) => new Uint16Array(n) },
  { max: 0xffff_ffff, make: (n) => new Uint32Array(n) },
];

/**
 * One number per request. `whole` columns start each chunk as bytes and
 * widen it (u8 → u16 → u32 → float64) when a value does not fit, so any
 * number is kept exactly; float columns are float64 from the start. A value
 * equal to `empty` written where no chunk exists allocates nothing.
 */
export class NumberColumn {
  private readonly chunks: (Chunk | undefined)[] = [];

  constructor(
    private readonly whole: boolean,
    /** What a request nothing was written for reads (NaN: absent). */
    readonly empty = 0,
  ) {}

  get(i: number): number {
    const c = this.chunks[Math.floor(i / CHUNK)];
    return c ? c[i % CHUNK] : this.empty;
  }

  set(i: number, v: number): void {
    const k = Math.floor(i / CHUNK);
    let c = this.chunks[k];
    if (!c) {
      if (Object.is(v, this.empty)) return;
      c = this.chunks[k] = this.fresh(v);
    } else if (!fits(c, v)) {
      c = this.chunks[k] = widen(c, v);
    }
    c[i % CHUNK] = v;
  }

  /** Sets rows [from, to) to one value, a chunk at a time. */
  fill(from: number, to: number, v: number): void {
    for (let i = from; i < to;) {
      const k = Math.floor(i / CHUNK);
      const end = Math.min(to, (k + 1) * CHUNK);
      if (!this.chunks[k] && Object.is(v, this.empty)) {
        i = end;
        continue;
      }
      this.set(i, v); // allocates or widens the chunk for v
      this.chunks[k]!.fill(v, i % CHUNK, end - k * CHUNK);
      i = end;
    }
  }

  /** Bytes held (tests, the benchmark). */
  get bytes(): number {
    let b = 0;
    for (const c of this.chunks) if (c) b += c.byteLength;
    return b;
  }

  private fresh(v: number): Chunk {
    let c: Chunk;
    if (!this.whole) c = new Float64Array(CHUNK);
    else c = (WIDTHS.find((w) => isWhole(v, w.max))?.make ?? ((n: number) => new Float64Array(n)))(CHUNK);
    if (this.empty !== 0) c.fill(this.empty);
    return c;
  }
}

function isWhole(v: number, max: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= max && !Object.is(v, -0);
}

function fits(c: Chunk, v: number): boolean {
  if (c instanceof Float64Array) return true;
  return isWhole(v, c instanceof Uint8Array ? 0xff : c instanceof Uint16Array ? 0xffff : 0xffff_ffff);
}

/** The same values in the narrowest kind that also holds `v`. */
function widen(c: Chunk, v: number): Chunk {
  const w = WIDTHS.find((x) => isWhole(v, x.max) && x.max > maxOf(c));
  const out = w ? w.make(c.length) : new Float64Array(c.length);
  out.set(c);
  return out;
}

function maxOf(c: Chunk): number {
  return c instanceof Uint8Array ? 0xff : c instanceof Uint16Array ? 0xffff : 0xffff_ffff;
}

type Block = Float64Array | Uint16Array | Uint8Array;

/**
 * Values appended one run after another into fixed-size blocks (a run never
 * straddles two: a run that does not fit the rest of a block starts the
 * next, and one larger than a block gets a block of its own). Where a run
 * went is (block, offset), which the caller keeps.
 */
export class BlockStore<B extends Block> {
  readonly blocks: B[] = [];
  private used = 0;

  constructor(
    private readonly make: (n: number) => B,
    private readonly blockSize: number,
  ) {}

  /** Room for `n` values; returns where they go (fill `blocks[block]` from `offset`). */
  reserve(n: number): { block: number; offset: number } {
    const last = this.blocks.length - 1;
    if (last >= 0 && this.used + n <= this.blocks[last].length) {
      const offset = this.used;
      this.used += n;
      return { block: last, offset };
    }
    this.blocks.push(this.make(Math.max(this.blockSize, n)));
    this.used = n;
    return { block: this.blocks.length - 1, offset: 0 };
  }

  get bytes(): number {
    let b = 0;
    for (const x of this.blocks) b += x.byteLength;
    return b;
  }
}
