/**
 * The package's root folder, whether this module runs from the TypeScript
 * sources (server/common/packageRoot.ts, under tsx or vitest) or compiled
 * (dist/server/packageRoot.js, from a clone or an installed package). Files
 * found at run time — the built web UI, the compiled Code2Wav worker, the
 * embedded repro server's entry — are all located from here.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above this module with a package.json: the root above server/ or dist/server/. */
function findRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findRoot(fileURLToPath(import.meta.url));

/** The compiled output (`npm run build`): dist/server, dist/shared and dist/web. */
export const DIST = join(PACKAGE_ROOT, 'dist');

/**
 * A compiled server module, e.g. `server/cli/reproChild.js`. Code started
 * in a new thread or process always runs from dist/ — also when the caller
 * runs from the sources, as the tests do — so it needs no TypeScript loader;
 * the test runner and `npm run bench` rebuild dist/ first when it is stale
 * (scripts/build.mjs --if-needed).
 */
export function compiledModule(rel: string): string {
  return join(DIST, rel);
}

/**
 * A Python program shipped in the package's `python/` folder (package.json
 * `files`), e.g. `asr_server.py`: run by a Python the user names, from the
 * sources and from an installed package alike.
 */
export function pythonProgram(name: string): string {
  return join(PACKAGE_ROOT, 'python', name);
}
