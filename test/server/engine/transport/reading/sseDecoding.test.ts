/**
 * The framer decodes ASCII reads without a TextDecoder until the first
 * non-ASCII byte: the strings must be exactly what one fatal streaming
 * UTF-8 decoder over the whole stream would give.
 */
import { describe, expect, it } from 'vitest';
import { SseFramer } from '#server/engine/transport/reading/sseFraming.ts';

const bytes = (...parts: (string | number[])[]): Uint8Array[] =>
  parts.map((p) => (typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p)));

function frame(reads: Uint8Array[]): string[] {
  const f = new SseFramer(1 << 20);
  return reads.flatMap((r) => f.push(r));
}

describe('SseFramer decoding', () => {
  it('joins a multi-byte character split across reads after ASCII reads', () => {
    const e = [0xc3, 0xa9]; // é
    expect(frame(bytes('data: {"a":"x', [e[0]], [e[1], ...new TextEncoder().encode('"}\n\n')]))).toEqual([
      'data: {"a":"xé"}',
    ]);
  });

  it('keeps a BOM that arrives after ASCII bytes as content, strips one at the very start', () => {
    const bom = [0xef, 0xbb, 0xbf];
    expect(frame(bytes('data: {"a":"', [...bom, 0x22, 0x7d, 0x0a, 0x0a]))).toEqual(['data: {"a":"\ufeff"}']);
    expect(frame(bytes([...bom, ...new TextEncoder().encode('data: [DONE]\n\n')]))).toEqual(['data: [DONE]']);
  });

  it('fails invalid UTF-8 after ASCII reads, and ASCII after non-ASCII still decodes', () => {
    expect(() => frame(bytes('data: {"a":', [0xff]))).toThrow(/not valid UTF-8/);
    expect(frame(bytes('data: "é', '"\n\n', 'data: {}\n\n'))).toEqual(['data: "é"', 'data: {}']);
  });
});
