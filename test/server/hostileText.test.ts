/**
 * The audit's other regular expressions on a peer's text, fed the shape that made each quadratic, at 200 KB: each
 * costs a small multiple of one pass over the text (before: seconds to tens of seconds), and does what it did.
 * - redact's userinfo (`[a-z][a-z0-9+.-]*://…@`, tried from each letter of a long word): every reported event,
 *   telemetry line and bench output line goes through it;
 * - pyJson's string token (`"(?:[^"\\]|\\.)*"`, retried from each quote of an unclosed string): imports;
 * - procfs's `/\0+$/` (retried from each NUL of a run of empty arguments): a server's command line.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '#shared/redact.ts';
import { parseResultText } from '#shared/vllmResult/pyJson.ts';
import { readCmdline } from '#server/engine/probes/serverStacks/procfs.ts';
import { costRatio } from '#test/helpers/linearTime.ts';

const N = 200_000;
const LINEAR = 50;

describe('regular expressions on outside text run in linear time', () => {
  it('redactSecrets: a 200 KB word before an @, and still masks a URL’s userinfo', () => {
    const word = 'a'.repeat(N) + '@';
    expect(costRatio(word, redactSecrets)).toBeLessThan(LINEAR);
    expect(redactSecrets(word)).toBe(word);
    expect(redactSecrets(`${'b'.repeat(N)} git+ssh://u:p@h/x`)).toBe(`${'b'.repeat(N)} git+ssh://***@h/x`);
  });

  it('parseResultText: one quote then 100,000 escaped quotes is refused as JSON, in linear time', () => {
    const text = '{"a": "' + '\\"'.repeat(N / 2);
    expect(costRatio(text, () => expect(() => parseResultText(text)).toThrow())).toBeLessThan(LINEAR);
    expect(parseResultText('{"a": "x\\"y", "b": NaN}\n{"c": [Infinity]}')).toEqual([
      { a: 'x"y', b: Number.NaN },
      { c: [Number.POSITIVE_INFINITY] },
    ]);
  });

  it('readCmdline: 200,000 empty arguments between two', () => {
    const root = mkdtempSync(join(tmpdir(), 'cmdline-'));
    mkdirSync(join(root, '7'));
    const raw = 'python\0' + '\0'.repeat(N) + 'serve\0\0';
    writeFileSync(join(root, '7', 'cmdline'), raw);
    expect(costRatio(raw, () => readCmdline(7, root))).toBeLessThan(LINEAR);
    expect(readCmdline(7, root)).toBe(`python${' '.repeat(1000 - 6)}…`);
    writeFileSync(join(root, '7', 'cmdline'), 'python\0-m\0x\0\0\0');
    expect(readCmdline(7, root)).toBe('python -m x');
  });
});
