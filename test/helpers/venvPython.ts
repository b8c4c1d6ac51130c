/**
 * The repository's Python (`<repo>/.venv/bin/python`, installed by `npm run setup`)
 * for tests that use a real Python tool as the oracle. Missing → an error naming
 * what is missing and how to install it; never a silent skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const VENV_PYTHON = resolve(import.meta.dirname, '../../.venv/bin/python');

export function venvPython(): string {
  if (!existsSync(VENV_PYTHON))
    throw new Error(`Python is missing: ${VENV_PYTHON} does not exist (run \`npm run setup\` to create .venv)`);
  return VENV_PYTHON;
}

/** Runs `script` with `input` on stdin and returns its stdout (bounded: 20 s). */
export function runPython(script: string, input = ''): string {
  return execFileSync(venvPython(), ['-c', script], { input, encoding: 'utf8', timeout: 20_000 });
}
