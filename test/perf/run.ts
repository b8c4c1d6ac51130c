/**
 * `npm run bench`: runs every test/perf/*.bench.ts in its own process, one
 * after another (they measure, so they must not compete for the 2 cores),
 * and lets each print its own figures.
 */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuild } from '../helpers/ensureBuild.ts';

const dir = dirname(fileURLToPath(import.meta.url));
/**
 * Benchmarks that also run under another name (`npm run bench engine` includes the breaker chaos),
 * unless STALLSCOPE_BENCH_ONLY picks sections of the named one (`STALLSCOPE_BENCH_ONLY=first-wave`).
 */
const ALSO: Record<string, string[]> = { engine: ['breakerChaos'] };
const sections = Boolean(process.env.STALLSCOPE_BENCH_ONLY);
const only = process.argv.slice(2).flatMap((o) => [o, ...(sections ? [] : (ALSO[o] ?? []))]);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
// The benchmarks start workers, targets and the bin from dist/: compile it first when stale.
ensureBuild();
let failed = 0;
for (const f of files) {
  console.log(`\n## ${f}`);
  // server/ and shared/ imports load from dist/ (distHooks.mjs): the figures are the shipped code's.
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', join(dir, 'useDist.mjs'), join(dir, f)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    failed++;
    console.log(`(${f} exited with ${r.status ?? r.signal})`);
  }
}
process.exitCode = failed ? 1 : 0;
