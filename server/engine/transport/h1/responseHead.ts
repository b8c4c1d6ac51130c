/**
 * The head of an HTTP/1.x response (RFC 9112): status line, header fields,
 * and what they say about the body that follows — how it is framed and
 * whether the connection may carry another request after it. Strict where a
 * lenient reading could take a body byte for a header (obsolete line
 * folding, a field without a colon, conflicting lengths); bounded in size.
 */

/** A head longer than this is refused (Node's and undici's default limit is 16 KiB; this leaves room). */
export const MAX_HEAD_BYTES = 64 * 1024;

/** How the body after a head ends. */
export type BodyFraming =
  | { kind: 'none' }
  | { kind: 'length'; bytes: number }
  | { kind: 'chunked' }
  /** Until the server closes the connection (HTTP/1.0 style, or no length and no chunking). */
  | { kind: 'close' };

export interface ResponseHead {
  status: number;
  /** Field names and values in order, as undici's raw headers: name, value, name, value… */
  raw: string[];
  framing: BodyFraming;
  /** The connection may carry another request once this body has been read whole. */
  reusable: boolean;
  /** How long the server keeps an idle connection open (`Keep-Alive: timeout=N`), or null when it does not say. */
  keepAliveS: number | null;
}

/** A response that is not HTTP/1.x as this client reads it; fails its request (not a transport failure). */
export class BadResponseError extends Error {
  readonly code = 'HTTP_BAD_RESPONSE';
  constructor(what: string) {
    super(`the target's response is not valid HTTP/1.1: ${what}`);
    this.name = 'BadResponseError';
  }
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
/** A field name is a token (RFC 9110, "Tokens"): the same rule for the heads read and the heads written. */
export const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DIGITS = /^\d{1,15}$/;

/**
 * Parses one head, `text` being its bytes as Latin-1 up to (not including)
 * the blank line that ends it.
 */
export function parseResponseHead(text: string): ResponseHead {
  const lines = text.split('\r\n');
  const statusLine = STATUS_LINE.exec(lines[0]);
  if (!statusLine) throw new BadResponseError(`status line ${JSON.stringify(lines[0].slice(0, 80))}`);
  const http10 = statusLine[1] === '0';
  const status = Number(statusLine[2]);
  const raw: string[] = [];
  let length: number | null = null;
  let chunked = false;
  let transferEncoding = false;
  let close = http10;
  let keepAliveS: number | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon <= 0) throw new BadResponseError(`header line ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon);
    // A leading space or tab is obsolete line folding; a name with spaces could be a body line.
    if (!FIELD_NAME.test(name)) throw new BadResponseError(`header name ${JSON.stringify(name.slice(0, 80))}`);
    const value = line.slice(colon + 1).trim();
    raw.push(name, value);
    switch (name.toLowerCase()) {
      case 'content-length': {
        if (!DIGITS.test(value)) throw new BadResponseError(`content-length ${JSON.stringify(value.slice(0, 40))}`);
        const n = Number(value);
        if (length !== null && length !== n) throw new BadResponseError('two different content-length values');
        length = n;
        break;
      }
      case 'transfer-encoding': {
        transferEncoding = true;
        const codings = value.toLowerCase().split(',');
        // Only a final `chunked` frames the body; any other coding leaves it to the close (RFC 9112, "Message Body Length").
        chunked = codings[codings.length - 1].trim() === 'chunked';
        break;
      }
      case 'keep-alive': {
        const t = /(?:^|,)\s*timeout\s*=\s*(\d{1,9})\s*(?:,|$)/i.exec(value);
        if (t) keepAliveS = Number(t[1]);
        break;
      }
      case 'connection':
        if (/(^|,)\s*close\s*(,|$)/i.test(value)) close = true;
        break;
    }
  }
  let framing: BodyFraming;
  if ((status >= 100 && status < 200) || status === 204 || status === 304) framing = { kind: 'none' };
  else if (transferEncoding) framing = chunked ? { kind: 'chunked' } : { kind: 'close' };
  else if (length !== null) framing = length === 0 ? { kind: 'none' } : { kind: 'length', bytes: length };
  else framing = { kind: 'close' };
  // Both a transfer-encoding and a length: the coding wins (RFC 9112, "Message Body Length"), and the connection is not kept.
  const reusable = !close && framing.kind !== 'close' && !(transferEncoding && length !== null);
  return { status, raw, framing, reusable, keepAliveS };
}
