/**
 * Real tools the tests run: the repo's Python (`.venv`, from
 * .ci/requirements.txt) and Debian binaries. A missing tool fails the test
 * with what is missing and how to install it; it never skips silently.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SETUP = 'run `npm run setup` (installs .ci/requirements.txt into .venv and the Debian packages CI needs)';

/** `<repo>/.venv/bin/python`, or throws naming it. */
export function venvPython(tool: string): string {
  const py = `${REPO_ROOT}.venv/bin/python`;
  if (!existsSync(py)) throw new Error(`${tool} needs ${py}, which is missing: ${SETUP}`);
  return py;
}

/** A Debian binary by absolute path, or throws naming its package. */
export function debianTool(path: string, pkg: string): string {
  if (!existsSync(path)) throw new Error(`${path} is missing: install the Debian package ${pkg} (${SETUP})`);
  return path;
}

/**
 * A Python without any installed package: a script in `dir` that runs the
 * repository's Python with `-S` (no site-packages), so transformers, torch
 * and numpy cannot be imported, whatever is installed on the machine.
 */
export function barePython(dir: string): string {
  const py = venvPython('a Python without packages');
  const path = join(dir, 'python-without-packages');
  writeFileSync(path, `#!/bin/sh\nexec '${py}' -S "$@"\n`, { mode: 0o755 });
  return path;
}
