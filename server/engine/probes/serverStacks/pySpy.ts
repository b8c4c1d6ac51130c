/**
 * One `py-spy dump --pid P --json [--native]` as a child process of the run:
 * its threads mapped to the shared ServerThread shape, or an error with a
 * stable code and a message that says what to do. The child is killed
 * (SIGKILL) at the deadline or when `signal` aborts, and the promise settles
 * only once it has exited, so a run never leaves a py-spy behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { ErrorCode } from '../../../../shared/errors.ts';
import type { ServerThread, StackFrame } from '../../../../shared/stalls/stallReport.ts';
import { capFile, capFunction } from '../../../../shared/stalls/frameText.ts';

/** Frames kept per thread (top first); deeper ones are counted in `framesDropped`. */
export const MAX_FRAMES = 200;
/** Threads kept per process. */
export const MAX_THREADS = 2000;
const MAX_OUTPUT = 64 * 1024 * 1024;

export interface DumpOptions {
  pySpy: string;
  pid: number;
  native: boolean;
  /** Kill limit in ms (the capture's own 5 s). */
  limitMs: number;
  signal?: AbortSignal;
}

export type DumpResult =
  { ok: true; threads: ServerThread[] } | { ok: false; code: Extract<ErrorCode, `STACKS_${string}`>; message: string };

/** py-spy's JSON thread record (py-spy 0.4). */
interface PySpyThread {
  pid?: number;
  thread_id?: number;
  thread_name?: string | null;
  os_thread_id?: number | null;
  active?: boolean;
  owns_gil?: boolean;
  frames?: { name?: string; filename?: string; module?: string | null; line?: number }[];
}

export const PYSPY_INSTALL = 'pip install py-spy';

export function missingMessage(pySpy: string): string {
  return `py-spy not found ('${pySpy}'): install it with \`${PYSPY_INSTALL}\` (or give --py-spy PATH); the benchmark goes on without server stacks`;
}

/** Why ptrace was refused, with the machine's own setting when it has one. */
export function permissionMessage(pid: number): string {
  let scope = '';
  try {
    const v = readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8').trim();
    scope = ` (here it is ${v})`;
  } catch {
    /* no Yama on this kernel */
  }
  return (
    `py-spy may not read process ${pid} (permission denied): reading another process's stacks needs ptrace rights — ` +
    `run stallscope as the server's user or as root; in a container add CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE); ` +
    `kernel.yama.ptrace_scope must allow it${scope}: 0 any process of the same user, 1 only descendants, 2 only root, 3 none`
  );
}

export function mapThreads(raw: unknown): ServerThread[] {
  if (!Array.isArray(raw)) throw new Error('py-spy did not print a JSON array');
  return (raw as PySpyThread[]).slice(0, MAX_THREADS).map((t) => {
    const all = t.frames ?? [];
    const frames: StackFrame[] = all.slice(0, MAX_FRAMES).map((f) => ({
      // Cut as the report schema bounds them, so a capture is never refused for one long native name.
      function: capFunction(f.name ?? ''),
      file: capFile(f.filename ?? ''),
      line: f.line ?? 0,
      column: 0,
      // py-spy names the shared object of a native frame in `module`; Python frames have none.
      language: f.module ? 'native' : 'python',
    }));
    return {
      name: t.thread_name ?? '',
      tid: t.os_thread_id ?? t.thread_id ?? 0,
      active: Boolean(t.active),
      ownsGil: Boolean(t.owns_gil),
      frames,
      ...(all.length > MAX_FRAMES ? { framesDropped: all.length - MAX_FRAMES } : {}),
    };
  });
}

/** Classifies py-spy's failure from its stderr and the process's existence. */
export function classifyFailure(pid: number, stderr: string): Extract<DumpResult, { ok: false }> {
  const first =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !/^Stack backtrace:|^\d+:/.test(l)) ?? 'no output';
  if (/permission denied|operation not permitted|os error 1\b|EPERM/i.test(stderr))
    return { ok: false, code: 'STACKS_PERMISSION', message: permissionMessage(pid) };
  if (!existsSync(`/proc/${pid}`))
    return {
      ok: false,
      code: 'STACKS_PROCESS_GONE',
      message: `process ${pid} is gone (it exited before py-spy read it)`,
    };
  if (/python version|python interpreter|libpython|not a python|python binary/i.test(stderr))
    return {
      ok: false,
      code: 'STACKS_NOT_PYTHON',
      message: `process ${pid} is not a Python process py-spy can read (${first})`,
    };
  return { ok: false, code: 'STACKS_FAILED', message: `py-spy could not read process ${pid}: ${first}` };
}

export function dumpProcess(o: DumpOptions): Promise<DumpResult> {
  return new Promise((resolve) => {
    const args = ['dump', '--pid', String(o.pid), '--json', ...(o.native ? ['--native'] : [])];
    let settled: DumpResult | null = null;
    let out = '';
    let err = '';
    let killedFor: 'limit' | 'abort' | null = null;
    const child = spawn(o.pySpy, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const kill = (why: 'limit' | 'abort') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killedFor = why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('limit'), o.limitMs);
    const onAbort = () => kill('abort');
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (out.length < MAX_OUTPUT) out += d;
    });
    child.stderr.on('data', (d: string) => {
      if (err.length < 64 * 1024) err += d;
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      settled =
        e.code === 'ENOENT'
          ? { ok: false, code: 'STACKS_PYSPY_MISSING', message: missingMessage(o.pySpy) }
          : { ok: false, code: 'STACKS_FAILED', message: `cannot run py-spy at '${o.pySpy}': ${e.message}` };
    });
    // 'close' comes after 'error' too (the spawn failed), and after every byte of output.
    child.on('close', (code) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (settled) return resolve(settled);
      if (killedFor === 'limit')
        return resolve({
          ok: false,
          code: 'STACKS_TIMEOUT',
          message: `py-spy dump of process ${o.pid} took longer than ${(o.limitMs / 1000).toFixed(1)} s and was killed`,
        });
      if (killedFor === 'abort')
        return resolve({ ok: false, code: 'STACKS_FAILED', message: `py-spy dump of process ${o.pid} was stopped` });
      if (code !== 0) return resolve(classifyFailure(o.pid, err));
      try {
        resolve({ ok: true, threads: mapThreads(JSON.parse(out)) });
      } catch (e) {
        resolve({
          ok: false,
          code: 'STACKS_FAILED',
          message: `py-spy output for process ${o.pid}: ${(e as Error).message}`,
        });
      }
    });
  });
}
