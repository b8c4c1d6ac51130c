/** The real dashboard (`stallscope serve`) as a child process on a free port with a temp data dir. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild } from './ensureBuild.ts';
import { REPO_ROOT as ROOT } from './tools.ts';

export interface RunningServer {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** SIGTERM (then SIGKILL after 5 s); removes the data dir unless `keepData` (a restart follows). */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** `stallscope serve --port <port|0> --data-dir <tmp> [args]`; resolves with the URL it prints. */
export async function startServer(
  dataDir = mkdtempSync(join(tmpdir(), 'stallscope-e2e-')),
  opts: { port?: number; args?: string[] } = {},
): Promise<RunningServer> {
  ensureBuild();
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'stallscope.js'),
      'serve',
      '--port',
      String(opts.port ?? 0),
      '--data-dir',
      dataDir,
      ...(opts.args ?? []),
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no URL within 20 s:\n${out}`)), 20_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    dataDir,
    child,
    async stop(o: { keepData?: boolean } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      if (!o.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
