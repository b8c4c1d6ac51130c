/**
 * The stdlib Python omni server of test/fixtures/omni_server as a real child
 * process (its Code2Wav stage a multiprocessing child), and the repo's
 * .venv tools. A missing tool fails the test naming it and `npm run setup`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './benchChild.ts';

export const VENV_BIN = join(REPO, '.venv/bin');
export const PYTHON = join(VENV_BIN, 'python');
export const PY_SPY = join(VENV_BIN, 'py-spy');

export function requireTool(path: string, name: string): void {
  if (!existsSync(path))
    throw new Error(`${name} is missing at ${path}: run \`npm run setup\` (installs .ci/requirements.txt into .venv)`);
}

export interface OmniFixture {
  url: string;
  port: number;
  pid: number;
  childPid: number;
  proc: ChildProcess;
  /** performance.now() of each request the server received (from its stdout). */
  stop(): Promise<void>;
}

export async function startOmniFixture(args: string[] = []): Promise<OmniFixture> {
  requireTool(PYTHON, 'python (.venv)');
  const proc = spawn(PYTHON, [join(REPO, 'test/fixtures/omni_server/server.py'), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`omni fixture did not start in 10 s: ${err}`)), 10_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /omni fixture listening on .*\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`omni fixture exited with ${code}: ${err}`));
    });
  });
  const m = /http:\/\/127\.0\.0\.1:(\d+) pid (\d+) child (\d+)/.exec(line)!;
  const port = Number(m[1]);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: Number(m[2]),
    childPid: Number(m[3]),
    proc,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM'); // the fixture kills its stage child, then exits
      const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
}
