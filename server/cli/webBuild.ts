/**
 * The web UI build (dist/web): when it is stale, and building it. Shared by
 * `stallscope serve --build-if-needed` and the browser tests.
 *
 * The build always runs with NODE_ENV=production: Vite keeps an inherited
 * NODE_ENV, and under vitest (NODE_ENV=test) it would bundle React's
 * development runtime — a UI about three times slower to draw, which
 * `npm start` then served as up to date.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { DIST, PACKAGE_ROOT as ROOT } from '../common/packageRoot.ts';

export const WEB_OUT = join(DIST, 'web');
const WEB_SOURCES = [join(ROOT, 'web'), join(ROOT, 'shared')];
// The build's own configuration: the vite config and its plugin that writes the compressed copies.
const BUILD_CONFIG = [join(ROOT, 'vite.config.ts'), join(ROOT, 'scripts', 'precompress.ts')];

/** Newest modification time under a directory (files only). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Whether dist/web must be (re)built: no index.html, or older than the web sources (web/ and the shared/ it imports) or the build's config. */
export function webBuildNeeded(
  src: string | string[] = WEB_SOURCES,
  out = WEB_OUT,
  config: string | string[] = BUILD_CONFIG,
): boolean {
  const index = join(out, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  const sources = (Array.isArray(src) ? src : [src]).filter((d) => existsSync(d));
  const configs = Array.isArray(config) ? config : [config];
  return (
    sources.some((d) => newestMtime(d) > built) || configs.some((c) => existsSync(c) && statSync(c).mtimeMs > built)
  );
}

/** `vite build` (production); returns whether it succeeded and what it printed when `quiet`. */
export function buildWeb(opts: { quiet?: boolean } = {}): { ok: boolean; output: string } {
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'build', ...(opts.quiet ? ['--logLevel', 'warn'] : [])];
  const r = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: opts.quiet ? 'pipe' : 'inherit',
    encoding: 'utf8',
  });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
