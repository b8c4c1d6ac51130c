/**
 * Part of section 4 of engine.bench.ts: the worst block of the main thread's
 * event loop in the first second of a run's clock, in the process a user
 * runs (the compiled `stallscope bench`, its progress bar drawn as at a
 * terminal), watched by loopBlock.preload.mjs. A block with as much
 * main-thread CPU as wall time is the process's own work; one with little
 * CPU is the machine (the thread waited for a core): both are printed. The
 * worst block is the one while requests were in flight; the one after the
 * last request ended (the result's computation, which delays no request) is
 * printed apart.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median } from '#shared/metrics/stats.ts';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/stallscope.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./loopBlock.preload.mjs', import.meta.url));

interface Watch {
  clocked: boolean;
  worstMs: number;
  worstAtMs: number;
  worstCpuMs: number;
  /** The worst block after the last request ended: the result's computation. */
  after: { at: number; ms: number; cpuMs: number };
  delayMaxMs: number;
}

const fmt = (x: number, d = 1): string => x.toFixed(d);

async function once(url: string, conc: number, n: number, mode: 'keep-alive' | 'per-request'): Promise<Watch> {
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-loop-'));
  const out = join(dir, 'watch.json');
  try {
    const argv = ['--import', PRELOAD, BIN, 'bench', '--base-url', url, '--model', 'm'];
    argv.push('--num-prompts', String(n), '--max-concurrency', String(conc));
    if (mode === 'keep-alive') argv.push('--keep-alive');
    await run(process.execPath, argv, {
      // The watcher patches the per-file modules (dist/server/engine/records/events.js): the bin must load them, not its
      // one-module bundle of the same code.
      env: { ...process.env, STALLSCOPE_LOOP_OUT: out, STALLSCOPE_LOOP_TTY: '1', STALLSCOPE_UNBUNDLED: '1' },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const w = JSON.parse(readFileSync(out, 'utf8')) as Watch;
    if (!w.clocked) throw new Error('the run never started its clock');
    return w;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The line saying the worst loop block of the first second over `runs` fresh processes. */
export async function loopBlocks(
  url: string,
  conc: number,
  n: number,
  mode: 'keep-alive' | 'per-request',
  runs = 5,
): Promise<string> {
  const ws: Watch[] = [];
  for (let i = 0; i < runs; i++) ws.push(await once(url, conc, n, mode));
  const each = ws.map((w) => `${fmt(w.worstMs)} at ${fmt(w.worstAtMs, 0)} ms, ${fmt(w.worstCpuMs)} CPU`).join('; ');
  return (
    `     ${mode}, worst event-loop block in the first second of a run (stallscope bench, progress bar on): ` +
    `median ${fmt(median(ws.map((w) => w.worstMs)))} ms, its main-thread CPU median ${fmt(median(ws.map((w) => w.worstCpuMs)))} ms ` +
    `(${runs} fresh processes: ${each}; monitorEventLoopDelay max median ${fmt(median(ws.map((w) => w.delayMaxMs)))} ms ` +
    `over the whole second); after the last request (the result's computation): median ${fmt(median(ws.map((w) => w.after.ms)))} ms, ` +
    `${fmt(median(ws.map((w) => w.after.cpuMs)))} ms CPU`
  );
}
