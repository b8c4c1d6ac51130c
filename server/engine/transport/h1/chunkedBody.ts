/**
 * The chunked transfer coding (RFC 9112, "Chunked Transfer Coding"), read incrementally: chunk
 * sizes in hex with optional extensions, each chunk's data handed on as a
 * view of the bytes read (no copy), the last chunk, trailer fields (read and
 * dropped), the blank line that ends the body. Any byte out of place fails
 * the response; size lines and trailers are bounded.
 */
import { BadResponseError } from './responseHead.ts';

/** A size line (with its extensions) or one trailer line longer than this is refused. */
const MAX_LINE_BYTES = 4096;
/** Chunk sizes above 2^48 are refused: exact as a double, and far above any response. */
const MAX_SIZE_HEX_DIGITS = 12;

const CR = 0x0d;
const LF = 0x0a;

const enum State {
  Size,
  Data,
  DataEnd,
  Trailer,
  Done,
}

export class ChunkedBody {
  private state = State.Size;
  /** The size line or trailer line read so far (Latin-1), across reads. */
  private line = '';
  /** Bytes of the current chunk's data still to come. */
  private left = 0;
  /** 0: expecting CR after a chunk's data; 1: expecting LF. */
  private endAt = 0;

  get done(): boolean {
    return this.state === State.Done;
  }

  /**
   * Reads `bytes`, handing each piece of chunk data to `data`. Returns how many
   * bytes belonged to the body: all of them, or fewer once it has ended (the
   * rest is not this response's).
   */
  push(bytes: Uint8Array, data: (piece: Uint8Array) => void): number {
    let at = 0;
    const n = bytes.length;
    while (at < n && this.state !== State.Done) {
      switch (this.state) {
        case State.Data: {
          const take = Math.min(this.left, n - at);
          data(bytes.subarray(at, at + take));
          at += take;
          this.left -= take;
          if (this.left === 0) {
            this.state = State.DataEnd;
            this.endAt = 0;
          }
          break;
        }
        case State.DataEnd: {
          const want = this.endAt === 0 ? CR : LF;
          if (bytes[at] !== want) throw new BadResponseError('chunk data not followed by CRLF');
          at++;
          if (++this.endAt === 2) this.state = State.Size;
          break;
        }
        default:
          at = this.readLine(bytes, at);
      }
    }
    return at;
  }

  /** Size and trailer lines: accumulates up to LF, then acts on the line. */
  private readLine(bytes: Uint8Array, from: number): number {
    const lf = bytes.indexOf(LF, from);
    const end = lf < 0 ? bytes.length : lf;
    if (this.line.length + (end - from) > MAX_LINE_BYTES)
      throw new BadResponseError('chunk size or trailer line too long');
    this.line += latin1(bytes, from, end);
    if (lf < 0) return bytes.length;
    const line = this.line;
    this.line = '';
    if (line.charCodeAt(line.length - 1) !== CR) throw new BadResponseError('chunk line not ended by CRLF');
    const content = line.slice(0, -1);
    if (this.state === State.Size) this.sizeLine(content);
    else if (content === '') this.state = State.Done; // the blank line after the trailers
    return lf + 1;
  }

  private sizeLine(content: string): void {
    const semi = content.indexOf(';');
    const hex = (semi < 0 ? content : content.slice(0, semi)).trimEnd();
    if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.replace(/^0+(?=.)/, '').length > MAX_SIZE_HEX_DIGITS)
      throw new BadResponseError(`chunk size ${JSON.stringify(hex.slice(0, 40))}`);
    const size = parseInt(hex, 16);
    if (size === 0) this.state = State.Trailer;
    else {
      this.left = size;
      this.state = State.Data;
    }
  }
}

function latin1(bytes: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(bytes[i]);
  return s;
}
