/**
 * One store for every string the request table keeps (generated texts,
 * error reasons): each string's UTF-16 code units packed into blocks — one
 * byte each when they all fit (Latin-1, nearly every text and error), two
 * otherwise — and read back exactly as written (a lone surrogate too).
 * A string is known by its id; id 0 is the empty string and costs nothing.
 * `intern` keeps one copy of a string written again (error reasons repeat:
 * a million unsent requests share one), up to MAX_INTERNED strings.
 */
import { BlockStore, IndexColumn } from './columns.ts';

const BLOCK = 256 * 1024;
/** Distinct strings remembered for interning; past it, new strings are stored each time. */
const MAX_INTERNED = 4096;
/** Code units per String.fromCharCode call (bounded: its arguments go on the stack). */
const DECODE_SLICE = 8192;
/** Whether a Uint16Array's bytes are UTF-16LE as they lie (every platform Node ships on but big-endian ones). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class TextStore {
  /** Buffers, so a Latin-1 string is copied in by Buffer's native write (below). */
  private readonly narrow = new BlockStore((n) => Buffer.alloc(n), BLOCK);
  private readonly wide = new BlockStore((n) => new Uint16Array(n), BLOCK / 2);
  /** Per id: block (narrow blocks even, wide blocks odd), offset in it, length in code units. */
  private readonly block = new IndexColumn();
  private readonly offset = new IndexColumn();
  private readonly length = new IndexColumn();
  private readonly interned = new Map<string, number>();
  private count = 1;

  /** Stores `s` and returns its id (0 for ''). */
  add(s: string, intern = false): number {
    if (s === '') return 0;
    if (intern) {
      const known = this.interned.get(s);
      if (known !== undefined) return known;
    }
    const id = this.count++;
    // A regular expression and Buffer's latin1 write, both native: a code unit at a time, in code that runs once a
    // request and so mostly unoptimised, cost much more (docs/performance.md#request-table).
    const isNarrow = !NOT_LATIN1.test(s);
    let at: { block: number; offset: number };
    if (isNarrow) {
      at = this.narrow.reserve(s.length);
      this.narrow.blocks[at.block].write(s, at.offset, s.length, 'latin1');
    } else {
      at = this.wide.reserve(s.length);
      const dest = this.wide.blocks[at.block];
      for (let k = 0; k < s.length; k++) dest[at.offset + k] = s.charCodeAt(k);
    }
    this.block.set(id, at.block * 2 + (isNarrow ? 0 : 1));
    this.offset.set(id, at.offset);
    this.length.set(id, s.length);
    if (intern && this.interned.size < MAX_INTERNED) this.interned.set(s, id);
    return id;
  }

  get(id: number): string {
    if (id === 0) return '';
    const b = this.block.get(id);
    const store = b % 2 === 0 ? this.narrow : this.wide;
    const from = this.offset.get(id);
    const units = store.blocks[Math.floor(b / 2)].subarray(from, from + this.length.get(id));
    // Decoded by Buffer (exact: latin1 maps each byte to its code point, utf16le keeps lone surrogates): spreading
    // the units into String.fromCharCode made reading the records back most of the CPU after a run's last request
    // (docs/design.md#request-table, docs/performance.md#request-table).
    if (b % 2 === 0) return Buffer.from(units.buffer, units.byteOffset, units.length).toString('latin1');
    if (LITTLE_ENDIAN) return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
    if (units.length <= DECODE_SLICE) return String.fromCharCode(...units);
    const parts: string[] = [];
    for (let k = 0; k < units.length; k += DECODE_SLICE)
      parts.push(String.fromCharCode(...units.subarray(k, k + DECODE_SLICE)));
    return parts.join('');
  }

  get bytes(): number {
    return this.narrow.bytes + this.wide.bytes + this.block.bytes + this.offset.bytes + this.length.bytes;
  }
}

/** A code unit past Latin-1 (the text is then kept two bytes a unit). */
const NOT_LATIN1 = /[\u0100-\uffff]/;
