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
 * One count per request (a token count, a flag, a choice, a text id): each
 * chunk starts as bytes and widens (u8 → u16 → u32 → float64) when a value
 * does not fit, so any number is kept exactly. A value equal to `empty`
 * written where no chunk exists allocates nothing. Times are FloatColumns.
 */
export class NumberColumn {
  private readonly chunks: (Chunk | undefined)[] = [];

  constructor(
    /** What a request nothing was written for reads. */
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

  fill(from: number, to: number, v: number): void {
    fillChunks(this.chunks, from, to, v, this.empty, (i) => this.set(i, v));
  }

  /** Nothing was ever written but its empty value: every row reads `empty`. */
  get untouched(): boolean {
    return this.chunks.length === 0;
  }

  /** Bytes held (tests, the benchmark). */
  get bytes(): number {
    return heldBytes(this.chunks);
  }

  private fresh(v: number): Chunk {
    const c = (WIDTHS.find((w) => isWhole(v, w.max))?.make ?? ((n: number) => new Float64Array(n)))(CHUNK);
    if (this.empty !== 0) c.fill(this.empty);
    return c;
  }
}

/**
 * Sets rows [from, to) of a column to one value, a chunk at a time: `set` allocates (or widens) a chunk for v, then
 * the chunk is filled; a chunk not allocated stays so when v is the column's empty value.
 */
function fillChunks(
  chunks: readonly (Chunk | undefined)[],
  from: number,
  to: number,
  v: number,
  empty: number,
  set: (i: number) => void,
): void {
  for (let i = from; i < to;) {
    const k = Math.floor(i / CHUNK);
    const end = Math.min(to, (k + 1) * CHUNK);
    if (chunks[k] === undefined && Object.is(v, empty)) {
      i = end;
      continue;
    }
    set(i);
    chunks[k]!.fill(v, i % CHUNK, end - k * CHUNK);
    i = end;
  }
}

/** The bytes of the arrays a column or store allocated (tests, the benchmark). */
function heldBytes(arrays: readonly (ArrayBufferView | undefined)[]): number {
  let b = 0;
  for (const a of arrays) if (a) b += a.byteLength;
  return b;
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

/*
 * The two fixed-kind columns below repeat NumberColumn's chunk lookup on purpose: V8 compiles a method once for
 * every kind of array it has seen there, so one class for all kinds made every caller's optimised code handle four
 * kinds, recompile as a chunk widened mid-run, and run unoptimised between (docs/performance.md#request-table). A
 * class per kind is compiled once.
 */

/** A float64 per request (times, durations), `empty` where nothing was written; chunks allocated on first use. */
export class FloatColumn {
  private readonly chunks: (Float64Array | undefined)[] = [];

  constructor(readonly empty = 0) {}

  get(i: number): number {
    const c = this.chunks[Math.floor(i / CHUNK)];
    return c === undefined ? this.empty : c[i % CHUNK];
  }

  set(i: number, v: number): void {
    const k = Math.floor(i / CHUNK);
    let c = this.chunks[k];
    if (c === undefined) {
      if (Object.is(v, this.empty)) return;
      c = this.chunks[k] = new Float64Array(CHUNK);
      if (this.empty !== 0) c.fill(this.empty);
    }
    c[i % CHUNK] = v;
  }

  fill(from: number, to: number, v: number): void {
    fillChunks(this.chunks, from, to, v, this.empty, (i) => this.set(i, v));
  }

  /** Nothing was ever written but its empty value: every row reads `empty`. */
  get untouched(): boolean {
    return this.chunks.length === 0;
  }

  get bytes(): number {
    return heldBytes(this.chunks);
  }
}

/** A whole number below 2^32 per id (where a packed value lies: block, offset, length); 0 where none was written. */
export class IndexColumn {
  private readonly chunks: (Uint32Array | undefined)[] = [];

  get(i: number): number {
    const c = this.chunks[Math.floor(i / CHUNK)];
    return c === undefined ? 0 : c[i % CHUNK];
  }

  set(i: number, v: number): void {
    if (!(v >= 0 && v <= 0xffff_ffff && Number.isInteger(v))) throw new RangeError(`not an index below 2^32: ${v}`);
    const k = Math.floor(i / CHUNK);
    let c = this.chunks[k];
    if (c === undefined) {
      if (v === 0) return;
      c = this.chunks[k] = new Uint32Array(CHUNK);
    }
    c[i % CHUNK] = v;
  }

  fill(from: number, to: number, v: number): void {
    fillChunks(this.chunks, from, to, v, 0, (i) => this.set(i, v));
  }

  /** Nothing was ever written but its empty value: every row reads `empty`. */
  get untouched(): boolean {
    return this.chunks.length === 0;
  }

  get bytes(): number {
    return heldBytes(this.chunks);
  }
}

type Block = Float64Array | Uint16Array | Uint8Array;

/** The first block's size in values; each next block doubles it, up to the store's block size. */
export const FIRST_BLOCK = 4096;

/**
 * Values appended one run after another into blocks (a run never straddles
 * two: a run that does not fit the rest of a block starts the next, and one
 * larger than a block gets a block of its own). Where a run went is (block,
 * offset), which the caller keeps. Blocks start small and double up to
 * `blockSize`: the first is allocated when a run's first request ends, in
 * the first wave, and a whole zeroed block there made that request's end,
 * and every first-wave response behind it, wait (docs/performance.md#request-table).
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
    const next = Math.min(this.blockSize, FIRST_BLOCK * 2 ** this.blocks.length);
    this.blocks.push(this.make(Math.max(next, n)));
    this.used = n;
    return { block: this.blocks.length - 1, offset: 0 };
  }

  get bytes(): number {
    return heldBytes(this.blocks);
  }
}
