/**
 * One `stallscope bench --omni-fail-fast-on-timeout` run as a real child
 * process against a matrix server (test/fixtures/servers/matrix.ts), timed
 * from the outside: when the trip line appeared on stdout, when the process
 * exited, and what the server saw of each of the run's sockets (open/close,
 * epoch ms). Shared by the matrix test and the "breaker chaos" benchmark.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchChild } from './benchChild.ts';
import type { ConnRecord, MatrixServer } from '../fixtures/servers/matrix.ts';

export type DispatchMode = 'inf' | 'rate' | 'trace';
export const DISPATCH_MODES: readonly DispatchMode[] = ['inf', 'rate', 'trace'];

export interface BreakerRunSpec {
  server: MatrixServer;
  /** Unique per run: the x-request-id prefix the server files the sockets under. */
  tag: string;
  keepAlive: boolean;
  dispatch: DispatchMode;
  /** Requests with index ≥ this hang after one text event. */
  hangFrom: number;
  numPrompts: number;
  timeoutS: number;
  concurrency?: number;
  /** Send SIGTERM this long after the trip line (or, with `signalBeforeTrip`, after the start). */
  signalAfterMs?: number;
  signalBeforeTrip?: boolean;
  /** Seconds the child may take before the test kills it (a hang). */
  killAfterS?: number;
}

export interface BreakerRunResult {
  code: number | null;
  /** Epoch ms: trip line seen, process exited (null trip: no trip line). */
  tripAtMs: number | null;
  exitAtMs: number;
  killed: boolean;
  /** Epoch ms the SIGTERM was sent (null: none). */
  signalAtMs: number | null;
  result: Record<string, unknown> | null;
  conns: ConnRecord[];
  stdout: string;
  stderr: string;
}

export async function breakerRun(spec: BreakerRunSpec): Promise<BreakerRunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-breaker-'));
  try {
    const args = [
      '--base-url',
      spec.server.url,
      '--model',
      'm',
      '--num-prompts',
      String(spec.numPrompts),
      '--omni-request-timeout-s',
      String(spec.timeoutS),
      '--omni-fail-fast-on-timeout',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'r.json',
      '--request-id-prefix',
      `${spec.tag}-`,
      '--header',
      `x-hang-from=${spec.hangFrom}`,
      `x-trip-after-ms=${Math.round(spec.timeoutS * 1000)}`,
      '--disable-tqdm',
      '--percentile-metrics',
      'ttft,e2el',
    ];
    if (spec.keepAlive) args.push('--keep-alive');
    if (spec.dispatch === 'trace') {
      const trace = join(dir, 'trace.jsonl');
      const lines: string[] = [];
      for (let i = 0; i < spec.numPrompts; i++)
        lines.push(JSON.stringify({ timestamp: i * 0.02, prompt: `r ${i}`, output_len: 4 }));
      writeFileSync(trace, lines.join('\n') + '\n');
      args.push('--dataset-name', 'trace', '--dataset-path', trace);
    } else {
      args.push('--dataset-name', 'random', '--random-input-len', '8', '--random-output-len', '4');
      args.push('--max-concurrency', String(spec.concurrency ?? 10));
      if (spec.dispatch === 'rate') args.push('--request-rate', '50', '--seed', '7');
    }
    const { child, done } = runBenchChild(args);
    let tripAtMs: number | null = null;
    let out = '';
    let signalTimer: NodeJS.Timeout | null = null;
    let signalAtMs: number | null = null;
    const sendSignal = (): void => {
      if (child.exitCode !== null) return;
      signalAtMs = Date.now();
      child.kill('SIGTERM');
    };
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (tripAtMs === null && out.includes('Fail-fast: request')) {
        tripAtMs = Date.now();
        if (spec.signalAfterMs !== undefined && !spec.signalBeforeTrip)
          signalTimer = setTimeout(sendSignal, spec.signalAfterMs);
      }
    });
    if (spec.signalBeforeTrip && spec.signalAfterMs !== undefined) {
      // Counted from the first request the server sees (its stats name the run's request ids), so neither
      // start-up nor the client warm-up before the clock — seconds on a loaded machine — eats into it.
      const started = Date.now();
      let asking = false;
      const giveUp = () => Date.now() - started > 20_000;
      const poll = setInterval(() => {
        if (asking || (!out.includes('Starting main benchmark run') && !giveUp())) return;
        asking = true;
        void spec.server.stats(`${spec.tag}-`).then(
          (seen) => {
            asking = false;
            if (seen.length === 0 && !giveUp()) return;
            clearInterval(poll);
            signalTimer = setTimeout(sendSignal, spec.signalAfterMs);
          },
          () => (asking = false),
        );
      }, 20);
      child.once('exit', () => clearInterval(poll));
    }
    let killed = false;
    const killer = setTimeout(
      () => {
        killed = true;
        child.kill('SIGKILL');
      },
      (spec.killAfterS ?? 15) * 1000,
    );
    const r = await done;
    const exitAtMs = Date.now();
    clearTimeout(killer);
    if (signalTimer) clearTimeout(signalTimer);
    let result: Record<string, unknown> | null = null;
    if (readdirSync(dir).includes('r.json')) result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    const conns = await spec.server.stats(`${spec.tag}-`);
    return { code: r.code, tripAtMs, exitAtMs, killed, signalAtMs, result, conns, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Latest server-side close of the run's sockets minus the trip (ms); Infinity if one never closed before exit. */
export function lastCloseAfterTrip(r: BreakerRunResult): number {
  if (r.tripAtMs === null) return Infinity;
  let worst = -Infinity;
  for (const c of r.conns) {
    if (c.closed === null || c.closed > r.exitAtMs) return Infinity;
    worst = Math.max(worst, c.closed - r.tripAtMs);
  }
  return worst;
}
