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
import { trimTrailingSlashes } from '#shared/text.ts';
import { parseThreshold } from '#shared/runInfo/verdict.ts';
import { parseStopRule } from '#shared/config/stopRules.ts';
import { nextLink } from '#server/engine/datasets/hub/hubApi.ts';

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
    // It reads a file: its syscalls cost more than the loop under load (68× once under stress-ng); the quadratic
    // `/\0+$/` was ~100,000×.
    expect(costRatio(raw, () => readCmdline(7, root))).toBeLessThan(LINEAR * 10);
    expect(readCmdline(7, root)).toBe(`python${' '.repeat(1000 - 6)}…`);
    writeFileSync(join(root, '7', 'cmdline'), 'python\0-m\0x\0\0\0');
    expect(readCmdline(7, root)).toBe('python -m x');
  });

  it('trimTrailingSlashes: a run of slashes then a letter (a base URL in a POST body), and trims as before', () => {
    const url = 'http://h' + '/'.repeat(N) + 'x';
    expect(costRatio(url, trimTrailingSlashes)).toBeLessThan(LINEAR);
    expect(trimTrailingSlashes(url)).toBe(url);
    expect(trimTrailingSlashes('http://h:8000///')).toBe('http://h:8000');
    expect(trimTrailingSlashes('///')).toBe('');
  });

  it('a threshold and a stop rule: a run of digits then a letter is refused in linear time; numbers parse as before', () => {
    const digits = '1'.repeat(N) + 'x';
    expect(costRatio(digits, (d) => expect(() => parseThreshold(`mean_ttft_ms<${d}`)).toThrow())).toBeLessThan(LINEAR);
    expect(costRatio(digits, (d) => expect(() => parseStopRule(`errors>=${d}`)).toThrow())).toBeLessThan(LINEAR);
    expect(parseThreshold('mean_ttft_ms <= 1.5e3')).toMatchObject({ key: 'mean_ttft_ms', op: '<=', value: 1500 });
    expect(parseThreshold('x>.5').value).toBe(0.5);
    expect(parseThreshold('x>5.').value).toBe(5);
  });

  it("the Hub's Link header: a run of `<` in linear time; the next page found as before", () => {
    const header = '<'.repeat(N);
    expect(costRatio(header, nextLink)).toBeLessThan(LINEAR);
    expect(nextLink(header)).toBeNull();
    expect(nextLink('<https://hub/a?cursor=2>; rel="next", <https://hub/a?c=0>; rel="prev"')).toBe(
      'https://hub/a?cursor=2',
    );
  });
});
