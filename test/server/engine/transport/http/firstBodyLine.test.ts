/** An error body's first line, as the request panel shows it beside the status: bounded, one line, no control characters. */
import { describe, expect, it } from 'vitest';
import { BODY_LINE_CHARS, firstBodyLine } from '#server/engine/transport/http/attempt.ts';

const bytes = (s: string) => [new TextEncoder().encode(s)];

describe('firstBodyLine', () => {
  it('the first non-blank line, trimmed; null for an empty body', () => {
    expect(firstBodyLine(bytes('\n  {"message":"The model `x` does not exist."}\r\nmore'))).toBe(
      '{"message":"The model `x` does not exist."}',
    );
    expect(firstBodyLine(bytes(''))).toBeNull();
    expect(firstBodyLine([])).toBeNull();
  });
  it('bounded, and a NUL or an escape sequence is a space', () => {
    expect(firstBodyLine(bytes('x'.repeat(5000)))).toHaveLength(BODY_LINE_CHARS);
    expect(firstBodyLine(bytes('a\u0000b\u001b[31mc'))).toBe('a b [31mc');
  });
});
