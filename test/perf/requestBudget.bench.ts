/**
 * The bench's peak memory against a server streaming 256 KB–8 MB text deltas
 * without end, beside a normal run's (`npm run bench requestBudget`;
 * docs/design.md#peer-bounds): a real `stallscope bench` process, two
 * requests (`--random-output-len 128`), its peak RSS the kernel's VmHWM read
 * at its exit. The request byte budget (REQ_BUDGET) is what keeps the first
 * from growing to gigabytes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runBenchChild } from '../helpers/benchChild.ts';

const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
const PEER = here('../server/engine/budget/hostilePeer.child.ts');
const PRELOAD = here('../server/engine/budget/peakRss.preload.mjs');

async function run(mode: 'sse-deltas' | 'normal'): Promise<{ peakMb: number; ms: number; statuses: string[] }> {
  const peer = spawn(process.execPath, ['--import', 'tsx', PEER, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-budget-bench-'));
  try {
    let url = '';
    for await (const line of createInterface({ input: peer.stdout })) if ((url = line).startsWith('http://')) break;
    const t0 = performance.now();
    const { done } = runBenchChild(
      [
        ...['--base-url', url, '--model', 'm', '--num-prompts', '2', '--max-concurrency', '2'],
        ...['--random-input-len', '8', '--random-output-len', '128', '--disable-tqdm'],
        ...['--save-result', '--result-dir', dir, '--result-filename', 'r.json'],
      ],
      { NODE_OPTIONS: `--import ${PRELOAD}`, STALLSCOPE_PEAK_RSS_FILE: join(dir, 'peak') },
    );
    await done;
    const ms = performance.now() - t0;
    const result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { statuses?: string[] };
    return { peakMb: Number(readFileSync(join(dir, 'peak'), 'utf8')) / 1024, ms, statuses: result.statuses ?? [] };
  } finally {
    peer.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

const normal = await run('normal');
const hostile = await run('sse-deltas');
const line = (name: string, r: { peakMb: number; ms: number; statuses: string[] }): string =>
  `${name.padEnd(36)} peak RSS ${r.peakMb.toFixed(0).padStart(5)} MB  ${(r.ms / 1000).toFixed(1).padStart(5)} s  ${r.statuses.join(',')}`;
console.log('request byte budget: a two-request bench (--random-output-len 128), peak RSS (VmHWM)');
console.log(line('normal server', normal));
console.log(line('endless 256 KB–8 MB deltas (SSE)', hostile));
console.log(`bound 600 MB: ${hostile.peakMb < 600 ? 'OK' : 'MISSED'}`);
