/**
 * Start-up: wall time of `stallscope bench --help` and
 * `stallscope --help` run as a user runs them (`node bin/stallscope.js`, the
 * compiled code in dist/), each started afresh. A bare `node -e 0` is timed
 * the same way, interleaved, so a loaded machine shows in the figures: the
 * CLI's own cost is the difference.
 */
import { spawnSync } from 'node:child_process';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNS = 15;
const line = (name: string, value: string, target: string, ok: boolean) =>
  console.log(`${name.padEnd(44)} ${value.padStart(14)}   target ${target.padEnd(12)} ${ok ? 'ok' : 'MISSED'}`);
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

function wallMs(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}: ${String(r.stderr)}`);
  return ms;
}

console.log(`start-up (compiled CLI) — load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`);
const bare: number[] = [];
const help: number[] = [];
const benchHelp: number[] = [];
wallMs(['bin/stallscope.js', 'bench', '--help']); // warm the file cache
for (let i = 0; i < RUNS; i++) {
  bare.push(wallMs(['-e', '0']));
  help.push(wallMs(['bin/stallscope.js', '--help']));
  benchHelp.push(wallMs(['bin/stallscope.js', 'bench', '--help']));
}
const p50 = pct(benchHelp, 0.5);
line('stallscope bench --help wall p50 (ms)', p50.toFixed(0), '< 250', p50 < 250);
line('stallscope bench --help wall p90 (ms)', pct(benchHelp, 0.9).toFixed(0), '', true);
line('stallscope --help wall p50 (ms)', pct(help, 0.5).toFixed(0), '', true);
line('bare `node -e 0` wall p50 (ms), for scale', pct(bare, 0.5).toFixed(0), '', true);
line('bench --help minus bare node, p50 (ms)', (p50 - pct(bare, 0.5)).toFixed(0), '', true);
