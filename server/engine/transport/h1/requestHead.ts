/**
 * The head of one POST, written as one Latin-1 string. Every header is
 * checked as it is written (a regular expression each): a value with CR or LF
 * would otherwise inject a header or a second request.
 */
import { FIELD_NAME } from './responseHead.ts';

/** A value: visible Latin-1, spaces and tabs; no CR, LF or NUL (a header injected into the request). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** An origin-form target: no spaces or controls. */
const PATH = /^\/[\x21-\x7e]*$/;
/**
 * Written by the client itself from the request; a caller's own would contradict them. (`host` is not one:
 * a caller's replaces the origin's, for a target behind a proxy that routes by name.)
 */
const OWN = new Set(['content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

/** A header this client cannot send as given. */
export class InvalidHeaderError extends Error {
  readonly code = 'HTTP_INVALID_HEADER';
  constructor(what: string) {
    super(what);
    this.name = 'InvalidHeaderError';
  }
}

/** Why a header cannot be sent as given (not a valid field, or the client's own), or null. */
export function headerIssue(name: string, value: string): string | null {
  if (!FIELD_NAME.test(name)) return `invalid header name ${JSON.stringify(name)}`;
  if (OWN.has(name.toLowerCase())) return `header ${name} is set by the client itself`;
  if (!FIELD_VALUE.test(value))
    return `invalid value for header ${name} (a control character or a character past Latin-1)`;
  return null;
}

/**
 * `POST path HTTP/1.1`, the host (the caller's `host` header when it gives
 * one), the caller's headers, the body's length, and `connection: close`
 * when the connection ends after this response.
 */
export function requestHead(
  path: string,
  host: string,
  headers: Record<string, string>,
  bodyBytes: number,
  close: boolean,
): string {
  if (!PATH.test(path)) throw new InvalidHeaderError(`invalid request path ${JSON.stringify(path)}`);
  let fields = '';
  let hostField = `host: ${host}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    const issue = headerIssue(name, value);
    if (issue !== null) throw new InvalidHeaderError(issue);
    if (name.length === 4 && name.toLowerCase() === 'host') hostField = `${name}: ${value}\r\n`;
    else fields += `${name}: ${value}\r\n`;
  }
  return (
    `POST ${path} HTTP/1.1\r\n${hostField}${fields}` +
    `content-length: ${bodyBytes}\r\nconnection: ${close ? 'close' : 'keep-alive'}\r\n\r\n`
  );
}
