/**
 * Launches the reproduction server for one run as a child process
 * (`stallscope repro-server --port 0 ...`) on a free loopback port, with its
 * telemetry sink pointed at this dashboard's ingest endpoint. A child per run
 * (not one shared server) because a `block` fault hangs the Code2Wav worker
 * for good: the next run must not inherit a stalled stage, and a run's fault
 * plan and watchdog are fixed at start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StallscopeError } from '../../../shared/errors.ts';
import type { TargetSpec } from '../../../shared/config/runSpec.ts';
import { compiledModule } from '../../common/packageRoot.ts';
import { faultFlags } from './faultFlags.ts';
import { TELEMETRY_TOKEN_ENV } from '../../../shared/protocol/telemetry.ts';
import { trimTrailingSlashes } from '../../../shared/text.ts';

export type EmbeddedSpec = Extract<TargetSpec, { kind: 'embedded' }>;

export interface LaunchedTarget {
  baseUrl: string;
  /** Resolves once every queued telemetry event was posted and acknowledged (never throws). */
  flushTelemetry(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
  stop(graceMs?: number): Promise<void>;
  readonly pid: number | undefined;
}

export interface LaunchOptions {
  spec: EmbeddedSpec;
  model: string;
  telemetryUrl: string;
  /** Sent as `x-stallscope-token`; passed in the child's environment so `ps` never shows it. */
  telemetryToken?: string | null;
  /** argv prefix that runs `stallscope repro-server`; tests substitute a fake target. */
  command?: string[];
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

/** `stallscope repro-server` that also exits when our end of its stdin pipe closes (see reproChild.ts), compiled. */
export const DEFAULT_REPRO_COMMAND = [process.execPath, compiledModule('server/cli/reproChild.js')];
const LISTENING = /stallscope repro-server listening on (http:\/\/\S+)/;

/** Children still alive, killed if the dashboard exits without stopping them. */
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of alive) c.kill('SIGKILL');
});

export function targetArgs(o: LaunchOptions): string[] {
  const s = o.spec;
  return [
    '--port',
    '0',
    ...faultFlags(s.faults),
    '--workers',
    String(s.workers),
    '--max-batch',
    String(s.maxBatch),
    '--watchdog-timeout-s',
    String(s.watchdogTimeoutS),
    '--telemetry-url',
    o.telemetryUrl,
    '--model',
    o.model,
    ...(s.seed !== undefined ? ['--seed', String(s.seed)] : []),
    ...(s.tokenRate !== undefined ? ['--token-rate', String(s.tokenRate)] : []),
  ];
}

export async function launchEmbeddedRepro(o: LaunchOptions): Promise<LaunchedTarget> {
  const [cmd, ...pre] = o.command ?? DEFAULT_REPRO_COMMAND;
  const log = o.log ?? (() => undefined);
  // stdin is a pipe we never write: it closes when this process dies, however it dies.
  const env = { ...process.env };
  delete env[TELEMETRY_TOKEN_ENV];
  if (o.telemetryToken) env[TELEMETRY_TOKEN_ENV] = o.telemetryToken;
  const child = spawn(cmd, [...pre, ...targetArgs(o)], { stdio: ['pipe', 'pipe', 'pipe'], env });
  alive.add(child);
  const exited = new Promise<void>((r) =>
    child.once('exit', () => {
      alive.delete(child);
      r();
    }),
  );
  let stderrTail = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderrTail = (stderrTail + d).slice(-2000);
    for (const line of d.split('\n')) if (line.trim()) log(`[target] ${line}`);
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    let settled = false;
    const timer = setTimeout(
      () => fail(`no 'listening' line within ${o.startTimeoutMs ?? 20_000} ms`),
      o.startTimeoutMs ?? 20_000,
    );
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(
        new StallscopeError(
          'INTERNAL',
          `the embedded repro server did not start: ${why}${stderrTail ? `\n${stderrTail.trim()}` : ''}`,
        ),
      );
    };
    child.once('error', (e) => fail(e.message));
    child.once('exit', (code, sig) => fail(`it exited (${code ?? sig})`));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const m = LISTENING.exec(buf);
      if (m && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(trimTrailingSlashes(m[1]));
      }
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) if (line.trim() && !LISTENING.test(line)) log(`[target] ${line}`);
    });
  });
  log(`embedded repro server at ${baseUrl} (pid ${child.pid})`);
  return {
    baseUrl,
    pid: child.pid,
    async flushTelemetry() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        const res = await fetch(`${baseUrl}/admin/telemetry/flush`, {
          method: 'POST',
          signal: AbortSignal.timeout(15_000),
        });
        if (!res.ok) log(`telemetry flush answered ${res.status}`);
        await res.arrayBuffer();
      } catch (e) {
        log(`telemetry flush failed: ${(e as Error).message}`);
      }
    },
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}
