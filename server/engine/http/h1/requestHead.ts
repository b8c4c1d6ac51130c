/**
 * The head of one POST, written as one Latin-1 string. Every header is
 * checked as it is written (a regular expression each): a value with CR or LF
 * would otherwise inject a header or a second request.
 */

/** A header name is a token (RFC 9110, "Tokens"). */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A value: visible Latin-1, spaces and tabs; no CR, LF or NUL (a header injected into the request). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** An origin-form target: no spaces or controls. */
const PATH = /^\/[\x21-\x7e]*$/;
/** Written by the client itself from the request; a caller's own would contradict them. */
const OWN = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

/** A header this client cannot send as given. */
export class InvalidHeaderError extends Error {
  readonly code = 'HTTP_INVALID_HEADER';
  constructor(what: string) {
    super(what);
    this.name = 'InvalidHeaderError';
  }
}

/** Throws InvalidHeaderError for a header that is not a valid field or is the client's own. */
export function checkHeader(name: string, value: string): void {
  if (!FIELD_NAME.test(name)) throw new InvalidHeaderError(`invalid header name ${JSON.stringify(name)}`);
  if (OWN.has(name.toLowerCase())) throw new InvalidHeaderError(`header ${name} is set by the client itself`);
  if (!FIELD_VALUE.test(value)) throw new InvalidHeaderError(`invalid value for header ${name}`);
}

/**
 * `POST path HTTP/1.1`, the host, the caller's headers, the body's length,
 * and `connection: close` when the connection ends after this response.
 */
export function requestHead(
  path: string,
  host: string,
  headers: Record<string, string>,
  bodyBytes: number,
  close: boolean,
): string {
  if (!PATH.test(path)) throw new InvalidHeaderError(`invalid request path ${JSON.stringify(path)}`);
  let head = `POST ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    checkHeader(name, value);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}content-length: ${bodyBytes}\r\nconnection: ${close ? 'close' : 'keep-alive'}\r\n\r\n`;
}
