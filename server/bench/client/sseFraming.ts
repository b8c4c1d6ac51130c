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
 * accepts `data:` without a space (we accept that field form, with a warning);
 * events larger than a bound fail the request instead of growing memory.
 */

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
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private buffer = '';
  /** Where to resume the `\n\n` search: everything before it has none. */
  private scanFrom = 0;
  private pendingCR = false;
  /** UTF-8 bytes of `buffer`, kept incrementally so a large event split over many reads costs linear time. */
  private pendingBytes = 0;

  constructor(private readonly maxEventBytes: number) {}

  /** Feed one network read; returns the messages it completed (trimmed, non-empty). */
  push(chunk: Uint8Array): string[] {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new FramingError('REQ_BAD_SSE', 'the stream is not valid UTF-8');
    }
    if (text.length === 0) return [];
    if (this.pendingCR && text.charCodeAt(0) === 10) text = text.slice(1);
    this.pendingCR = text.endsWith('\r');
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    this.buffer += text;
    const messages: string[] = [];
    let cut = false;
    for (;;) {
      const at = this.buffer.indexOf('\n\n', this.scanFrom);
      if (at < 0) break;
      cut = true;
      const message = this.buffer.slice(0, at).trim();
      this.buffer = this.buffer.slice(at + 2);
      this.scanFrom = 0;
      if (message) {
        // Characters bound bytes from below and a third of them from above: count exactly only in between.
        if (message.length > this.maxEventBytes || (message.length * 3 > this.maxEventBytes && utf8Length(message) > this.maxEventBytes)) {
          this.tooLarge();
        }
        messages.push(message);
      }
    }
    // After a cut the rest lies within this read's text, so recounting it stays linear overall.
    this.pendingBytes = cut ? utf8Length(this.buffer) : this.pendingBytes + utf8Length(text);
    if (this.pendingBytes > this.maxEventBytes) this.tooLarge();
    this.scanFrom = Math.max(0, this.buffer.length - 1);
    const leftover = this.completeLeftover();
    if (leftover !== null) {
      messages.push(leftover);
      this.buffer = '';
      this.scanFrom = 0;
      this.pendingBytes = 0;
    }
    return messages;
  }

  /** Bytes still buffered (an unterminated, incomplete message), for the end-of-stream warning. */
  get pending(): string {
    return this.buffer.trim();
  }

  /** vLLM's rule: a leftover `data:` message counts if it is `[DONE]` or parses as JSON. */
  private completeLeftover(): string | null {
    const buf = this.buffer;
    if (!buf.startsWith('data:')) return null;
    const content = buf.slice(buf.startsWith('data: ') ? 6 : 5).trim();
    if (content === '[DONE]') return buf.trim();
    // Only a value ending like JSON can parse; skip the parse for the common
    // half-received event so a large event split over many reads stays linear.
    const last = content.charCodeAt(content.length - 1);
    if (!content || !(last === 125 /* } */ || last === 93 /* ] */ || last === 34 /* " */ || (last >= 48 && last <= 57) || last === 101 || last === 108)) {
      return null;
    }
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
