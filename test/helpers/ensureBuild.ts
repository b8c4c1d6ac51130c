/**
 * Makes sure dist/ is fresh before anything runs compiled code: the bin
 * (`node bin/stallscope.js ...`), the embedded repro server child and every
 * Code2Wav worker thread run from dist/, also under the tests. Once per
 * process; `scripts/build.mjs --if-needed` compares modification times and
 * rebuilds only what is stale (under a lock, so parallel callers build once).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const done = new Set<string>();

/** `web: true` also builds the web UI (dist/web) when web/ or shared/ changed. */
export function ensureBuild(opts: { web?: boolean } = {}): void {
  const key = opts.web ? 'web' : 'server';
  if (done.has(key)) return;
  const args = ['scripts/build.mjs', '--if-needed', ...(opts.web ? [] : ['--server-only'])];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  done.add(key);
  if (opts.web) done.add('server');
}
