/**
 * SSE framing that reproduces vLLM's `StreamedResponseHandler` timing
 * exactly, which the golden fixtures depend on (case 6):
 * - bytes are decoded incrementally as UTF-8 (a character split across reads
 *   is joined, case 10);
 * - complete messages are cut at `\n\n` and trimmed;
 * - after each read, a leftover buffer that starts with `data:` and whose rest
 *   is `[DONE]` or valid JSON is emitted at once and the buffer is cleared
 *   (vLLM's rule; the clear also drops a following `\n`, which delays the next
 *   message until its own `\n\n`).
 *
 * Why not eventsource-parser: it dispatches an event only at its blank line,
 * so it cannot emit the "complete JSON without its blank line" leftover early,
 * and it would not drop the `\n` the way vLLM does; the recorded TTFT of case 6
 * (read w4, not w2/w3) cannot be reproduced with it. The framing is small, so
 * it is hand-written here and fuzzed by the tests instead.
 *
 * Deviations from vLLM, all for robustness and none visible in vLLM's own
 * streams: CRLF and lone CR line ends are normalised to LF (the SSE spec
 * allows them; vLLM would never split such a stream); the leftover rule also
 * accepts `data:` without a space (we accept that field form, with a warning)
 * and only examines tails ending in `}` or `]` (a leftover JSON value that is
 * not an object fails the request either way, just one read later here);
 * events larger than a bound fail the request instead of growing memory.
 */

import { Buffer, isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';

export class FramingError extends Error {
  constructor(
    readonly code: 'REQ_BAD_SSE' | 'REQ_EVENT_TOO_LARGE',
    message: string,
  ) {
    super(message);
    this.name = 'FramingError';
  }
}

/** UTF-8 byte length of a string (a lone surrogate counts 3, as the replacement character would). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

export class SseFramer {
  /**
   * Created at the first byte that is not ASCII. Until then each read is
   * ASCII, which decodes to the same string as UTF-8 and leaves no partial
   * character behind, so a native latin1 slice stands in for the decoder: a
   * fatal TextDecoder (ICU) per request and its decode cost a measurable
   * share of the client's CPU at thousands of requests per second.
   */
  private decoder: TextDecoder | null = null;
  /** Bytes were decoded before the decoder existed: a BOM arriving later is content, not a BOM. */
  private decodedAny = false;
  /**
   * The unterminated tail, kept as the reads' strings: appending to one
   * string and searching it would flatten the whole rope on every read,
   * which is quadratic for a large event split over many reads.
   */
  private parts: string[] = [];
  private partsChars = 0;
  /** UTF-8 bytes of the tail, kept incrementally for the size bound. */
  private pendingBytes = 0;
  private pendingCR = false;

  constructor(private readonly maxEventBytes: number) {}

  /** Feed one network read; returns the messages it completed (trimmed, non-empty). */
  push(chunk: Uint8Array): string[] {
    let text = this.decode(chunk);
    if (text.length === 0) return [];
    if (this.pendingCR && text.charCodeAt(0) === 10) text = text.slice(1);
    this.pendingCR = text.endsWith('\r');
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    if (text.length === 0) return [];
    const messages: string[] = [];
    const straddles = this.partsChars > 0 && text.charCodeAt(0) === 10 && this.lastPart().endsWith('\n');
    if (straddles || text.includes('\n\n')) {
      let buffer = this.parts.join('') + text;
      let from = Math.max(0, this.partsChars - 1);
      for (;;) {
        const at = buffer.indexOf('\n\n', from);
        if (at < 0) break;
        const message = buffer.slice(0, at).trim();
        buffer = buffer.slice(at + 2);
        from = 0;
        if (message) {
          // Characters bound bytes from below and a third of them from above: count exactly only in between.
          if (
            message.length > this.maxEventBytes ||
            (message.length * 3 > this.maxEventBytes && utf8Length(message) > this.maxEventBytes)
          ) {
            this.tooLarge();
          }
          messages.push(message);
        }
      }
      // The rest lies within this read's text, so recounting it keeps the total linear.
      this.setTail(buffer, utf8Length(buffer));
    } else {
      this.parts.push(text);
      this.partsChars += text.length;
      this.pendingBytes += utf8Length(text);
    }
    if (this.pendingBytes > this.maxEventBytes) this.tooLarge();
    const leftover = this.completeLeftover();
    if (leftover !== null) {
      messages.push(leftover);
      this.setTail('', 0);
    }
    return messages;
  }

  private decode(chunk: Uint8Array): string {
    if (this.decoder === null) {
      if (isAscii(chunk)) {
        if (chunk.length > 0) this.decodedAny = true;
        return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      }
      this.decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: this.decodedAny });
    }
    try {
      return this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new FramingError('REQ_BAD_SSE', 'the stream is not valid UTF-8');
    }
  }

  /** Bytes still buffered (an unterminated, incomplete message), for the end-of-stream warning. */
  get pending(): string {
    return this.parts.join('').trim();
  }

  private lastPart(): string {
    return this.parts[this.parts.length - 1] ?? '';
  }

  private setTail(text: string, bytes: number): void {
    this.parts = text ? [text] : [];
    this.partsChars = text.length;
    this.pendingBytes = bytes;
  }

  /**
   * vLLM's rule: a leftover `data:` message counts if it is `[DONE]` or parses
   * as JSON. Only a tail ending in `}` (an object; any other JSON value fails
   * the request anyway) or `]` (`[DONE]`) is joined and examined, so a large
   * event arriving in many reads is not re-parsed at every read.
   */
  private completeLeftover(): string | null {
    let last = '';
    for (let i = this.parts.length - 1; i >= 0 && !last; i--) last = this.parts[i].trimEnd().slice(-1);
    if (last !== '}' && last !== ']') return null;
    const buf = this.parts.join('');
    this.parts = [buf];
    if (!buf.startsWith('data:')) return null;
    const content = buf.slice(buf.startsWith('data: ') ? 6 : 5).trim();
    if (content === '[DONE]') return buf.trim();
    if (last !== '}') return null;
    try {
      JSON.parse(content);
      return buf.trim();
    } catch {
      return null;
    }
  }

  private tooLarge(): never {
    throw new FramingError('REQ_EVENT_TOO_LARGE', `more than ${this.maxEventBytes} bytes without an event boundary`);
  }
}

/** One SSE message split into its fields; comments and unused fields are dropped. */
export interface SseMessage {
  /** The joined `data` field values, or null when the message had none (comment only). */
  data: string | null;
  /** A `data:` field without the space after the colon was seen. */
  dataWithoutSpace: boolean;
}

const IGNORED_FIELDS = new Set(['event', 'id', 'retry']);

/**
 * Split a message into SSE fields. A line that is not a comment and not one of
 * the SSE fields (`data`, `event`, `id`, `retry`) means the body is not an
 * event stream at all (an HTML error page, a JSON body): the request fails.
 */
export function parseSseMessage(message: string): SseMessage {
  // Fast path: the one-line `data: ...` message every vLLM event is.
  if (message.startsWith('data: ') && !message.includes('\n'))
    return { data: message.slice(6), dataWithoutSpace: false };
  const data: string[] = [];
  let dataWithoutSpace = false;
  for (const line of message.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field === 'data') {
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      else if (value !== '') dataWithoutSpace = true;
      data.push(value);
    } else if (!IGNORED_FIELDS.has(field)) {
      const shown = line.length > 80 ? `${line.slice(0, 80)}…` : line;
      throw new FramingError('REQ_BAD_SSE', `not an SSE line: ${JSON.stringify(shown)}`);
    }
  }
  return { data: data.length ? data.join('\n') : null, dataWithoutSpace };
}
