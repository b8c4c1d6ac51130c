/**
 * Reading a response head (h1/responseHead.ts): how the body is framed, when
 * the connection may be reused, and what is refused.
 */
import { describe, expect, it } from 'vitest';
import { BadResponseError, parseResponseHead } from '#server/engine/transport/h1/responseHead.ts';

const head = (...lines: string[]) => parseResponseHead(lines.join('\r\n'));

describe('parseResponseHead', () => {
  it('a chunked event stream over HTTP/1.1: chunked framing, reusable, raw headers in order', () => {
    const h = head('HTTP/1.1 200 OK', 'Content-Type: text/event-stream', 'Transfer-Encoding: chunked');
    expect(h).toEqual({
      status: 200,
      raw: ['Content-Type', 'text/event-stream', 'Transfer-Encoding', 'chunked'],
      framing: { kind: 'chunked' },
      reusable: true,
      keepAliveS: null,
    });
  });

  it('a content-length frames the body; Keep-Alive: timeout= is read', () => {
    const h = head('HTTP/1.1 200 OK', 'content-length: 42', 'keep-alive: timeout=5, max=100');
    expect(h.framing).toEqual({ kind: 'length', bytes: 42 });
    expect(h.keepAliveS).toBe(5);
    expect(h.reusable).toBe(true);
  });

  it('neither length nor chunking: the body ends with the connection, which is not reused', () => {
    const h = head('HTTP/1.1 200 OK', 'content-type: text/event-stream');
    expect(h.framing).toEqual({ kind: 'close' });
    expect(h.reusable).toBe(false);
  });

  it('HTTP/1.0 is never reused, even with a length', () => {
    const h = head('HTTP/1.0 200 OK', 'content-length: 3');
    expect(h.framing).toEqual({ kind: 'length', bytes: 3 });
    expect(h.reusable).toBe(false);
  });

  it('Connection: close (in a list, any case) ends reuse', () => {
    expect(head('HTTP/1.1 200 OK', 'content-length: 3', 'Connection: keep-alive, Close').reusable).toBe(false);
    expect(head('HTTP/1.1 200 OK', 'content-length: 3', 'connection: closed-ish').reusable).toBe(true);
  });

  it('no body: 1xx, 204, 304, and a zero length', () => {
    for (const status of [100, 103, 204, 304])
      expect(head(`HTTP/1.1 ${status} X`, 'content-length: 5').framing).toEqual({ kind: 'none' });
    expect(head('HTTP/1.1 200 OK', 'content-length: 0').framing).toEqual({ kind: 'none' });
  });

  it('a transfer coding other than a final chunked is read to the close', () => {
    expect(head('HTTP/1.1 200 OK', 'transfer-encoding: chunked, gzip').framing).toEqual({ kind: 'close' });
    expect(head('HTTP/1.1 200 OK', 'transfer-encoding: gzip, chunked').framing).toEqual({ kind: 'chunked' });
  });

  it('both a transfer-encoding and a length: the coding wins, the connection is not kept', () => {
    const h = head('HTTP/1.1 200 OK', 'content-length: 10', 'transfer-encoding: chunked');
    expect(h.framing).toEqual({ kind: 'chunked' });
    expect(h.reusable).toBe(false);
  });

  it('a reason phrase is optional; the same length twice is accepted', () => {
    expect(head('HTTP/1.1 500', 'content-length: 1', 'content-length: 1').status).toBe(500);
  });

  it.each([
    ['not HTTP', ['ICY 200 OK']],
    ['HTTP/2 status line', ['HTTP/2 200']],
    ['a two-digit status', ['HTTP/1.1 20 OK']],
    ['a line without a colon', ['HTTP/1.1 200 OK', 'garbage']],
    ['obsolete line folding', ['HTTP/1.1 200 OK', 'x-a: 1', ' folded']],
    ['a space in a field name', ['HTTP/1.1 200 OK', 'content length: 3']],
    ['a negative length', ['HTTP/1.1 200 OK', 'content-length: -1']],
    ['two different lengths', ['HTTP/1.1 200 OK', 'content-length: 1', 'content-length: 2']],
  ])('refused: %s', (_what, lines) => {
    expect(() => head(...lines)).toThrow(BadResponseError);
  });
});
