/**
 * `stallscope asr-server`'s own flags for the transcription server's bounds
 * (docs/design.md#local-asr): named in its --help, checked before Python
 * starts, handed to python/asr_server.py as given.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ASR_SERVER_USAGE, run } from '#server/cli/asrServer.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-asrcli-'));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

it('names the body cap, the read timeout and the connection cap in --help', () => {
  expect(ASR_SERVER_USAGE).toMatch(/--max-upload-bytes B .*413/);
  expect(ASR_SERVER_USAGE).toMatch(/--read-timeout S .*dropped/s);
  expect(ASR_SERVER_USAGE).toMatch(/--max-connections N .*503/s);
});

it('refuses a bound that is not a positive number before Python starts (exit 2)', async () => {
  for (const args of [
    ['--read-timeout', '0'],
    ['--read-timeout', 'x'],
    ['--max-upload-bytes', '1.5'],
    ['--max-connections', '1e3'],
  ]) {
    expect(await run(['--python', join(dir, 'no-python'), ...args]), args.join(' ')).toBe(2);
    expect(vi.mocked(console.error).mock.lastCall?.[0]).toContain(`--${args[0].slice(2)} '${args[1]}' is not`);
  }
});

it('hands the bounds to python/asr_server.py as given', async () => {
  const python = join(dir, 'python');
  writeFileSync(python, `#!/bin/sh\necho "$@" > '${join(dir, 'args')}'\n`, { mode: 0o755 });
  const code = await run([
    '--python',
    python,
    '--read-timeout',
    '2.5',
    '--max-connections',
    '8',
    '--max-upload-bytes',
    '1000',
  ]);
  expect(code).toBe(0);
  expect(readFileSync(join(dir, 'args'), 'utf8')).toMatch(
    /asr_server\.py .* --max-upload-bytes 1000 --read-timeout 2\.5 --max-connections 8\n$/,
  );
});
