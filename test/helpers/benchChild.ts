/** Runs `node bin/stallscope.js bench ...` as a real child process (shared by the CLI tests). */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureBuild } from './ensureBuild.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

export interface ChildRun {
  child: ChildProcess;
  done: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
    exitedAtMs: number;
  }>;
}

export function runBenchChild(args: string[], env: Record<string, string> = {}): ChildRun {
  ensureBuild();
  const child = spawn(process.execPath, ['bin/stallscope.js', 'bench', ...args], {
    cwd: REPO,
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
    exitedAtMs: number;
  }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, exitedAtMs: performance.now() }));
  });
  return { child, done };
}
