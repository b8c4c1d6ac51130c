/**
 * The chunked coding read incrementally (h1/chunkedBody.ts): the same body
 * cut at every byte boundary reads the same; what follows the body is not
 * taken; malformed framing is refused.
 */
import { describe, expect, it } from 'vitest';
import { ChunkedBody } from '#server/engine/transport/h1/chunkedBody.ts';
import { BadResponseError } from '#server/engine/transport/h1/responseHead.ts';

const bytes = (s: string) => Buffer.from(s, 'latin1');

/** Reads `wire` in the given pieces; returns the data, whether it ended, and how many bytes were the body's. */
function read(pieces: string[]): { data: string; done: boolean; used: number } {
  const body = new ChunkedBody();
  let data = '';
  let used = 0;
  for (const p of pieces) {
    if (body.done) break;
    used += body.push(bytes(p), (piece) => (data += Buffer.from(piece).toString('latin1')));
  }
  return { data, done: body.done, used };
}

const WIRE = '5;ext=1\r\nhello\r\n1A\r\n' + 'abcdefghijklmnopqrstuvwxyz' + '\r\n0\r\nx-trailer: t\r\n\r\n';

describe('ChunkedBody', () => {
  it('reads chunks, extensions and trailers in one piece', () => {
    expect(read([WIRE])).toEqual({ data: 'helloabcdefghijklmnopqrstuvwxyz', done: true, used: WIRE.length });
  });

  it('reads the same cut at every byte boundary, and byte by byte', () => {
    for (let cut = 1; cut < WIRE.length; cut++)
      expect(read([WIRE.slice(0, cut), WIRE.slice(cut)]).data, `cut at ${cut}`).toBe('helloabcdefghijklmnopqrstuvwxyz');
    expect(read([...WIRE])).toMatchObject({ data: 'helloabcdefghijklmnopqrstuvwxyz', done: true });
  });

  it('stops at the end of the body: the bytes after it are not counted as its own', () => {
    const after = 'HTTP/1.1 200 OK\r\n';
    expect(read([WIRE + after])).toMatchObject({ done: true, used: WIRE.length });
  });

  it('an unfinished body is not done', () => {
    expect(read(['5\r\nhel'])).toEqual({ data: 'hel', done: false, used: 6 });
    expect(read(['0\r\n'])).toMatchObject({ done: false }); // the blank line after the trailers is still to come
  });

  it.each([
    ['a size that is not hex', 'zz\r\nhello\r\n'],
    ['chunk data not followed by CRLF', '2\r\nhello'],
    ['a size line ended by LF alone', '5\nhello\r\n'],
    ['a size too large', 'fffffffffffff\r\n'],
    ['a size line longer than 4 KiB', `5;${'x'.repeat(5000)}\r\n`],
  ])('refused: %s', (_what, wire) => {
    expect(() => read([wire])).toThrow(BadResponseError);
  });
});
