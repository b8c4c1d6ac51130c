/**
 * `stallscope repro-server` as a child process with a fast watchdog (0.5 s), its telemetry posted to a
 * dashboard, optionally with a fault (`hift:block` hangs its Code2Wav worker in hift); resolves with its URL.
 * `stop()` ends it: SIGTERM, then SIGKILL after 5 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ensureBuild } from './ensureBuild.ts';
import { REPO_ROOT } from './tools.ts';

export interface ReproProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startReproServer(dashboard: string, fault: string | null): Promise<ReproProcess> {
  ensureBuild();
  const args = ['bin/stallscope.js', 'repro-server', '--port', '0', '--watchdog-timeout-s', '0.5'];
  args.push('--telemetry-url', `${dashboard}/api/ingest`, ...(fault ? ['--fault', fault] : []));
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`repro-server printed no URL within 20 s:\n${out}`)), 20_000);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`repro-server exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(kill);
    },
  };
}
