/**
 * py-spy as a child process of the run, and the /proc walk: a real dump of a
 * real Python process (a thread blocked in a named function), py-spy missing,
 * permission denied (a fake py-spy printing py-spy's real EPERM text), a dump
 * killed at its limit (and really gone), `auto` finding a listener's pid,
 * and the descendants of a pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpProcess } from '#server/engine/probes/serverStacks/pySpy.ts';
import { captureTree } from '#server/engine/probes/serverStacks/capture.ts';
import { loadPhaseRules } from '#server/engine/probes/serverStacks/rules.ts';
import { findListenerPid, processTree } from '#server/engine/probes/serverStacks/procfs.ts';
import { checkServerStacks } from '#server/engine/probes/serverStacks/config.ts';
import { PY_SPY, PYTHON, requireTool } from '#test/helpers/omniFixture.ts';

/** The text py-spy 0.4.2 prints when ptrace is refused (checked here as a non-root user). */
const EPERM_TEXT = `Permission Denied: Try running again with elevated permissions by going 'sudo env "PATH=$PATH" !!'`;

let dir: string;
let py: ChildProcess;
beforeAll(async () => {
  requireTool(PYTHON, 'python (.venv)');
  requireTool(PY_SPY, 'py-spy (.venv)');
  dir = mkdtempSync(join(tmpdir(), 'stallscope-pyspy-'));
  const script = [
    'import threading, sys',
    'def blocked_in_hift_decode(ev):',
    '    ev.wait()',
    "t = threading.Thread(target=blocked_in_hift_decode, args=(threading.Event(),), name='code2wav', daemon=True)",
    't.start()',
    "print('ready', flush=True)",
    'sys.stdin.read()',
  ].join('\n');
  py = spawn(PYTHON, ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((r) => py.stdout!.once('data', () => r()));
});
afterAll(() => {
  py.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function fake(name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

describe('dumpProcess', () => {
  it('reads every thread of a live Python process, the blocked one under its caller', async () => {
    const r = await dumpProcess({ pySpy: PY_SPY, pid: py.pid!, native: false, limitMs: 5000 });
    if (!r.ok) throw new Error(r.message);
    const t = r.threads.find((x) => x.name === 'code2wav')!;
    expect(t.active).toBe(false);
    const names = t.frames.map((f) => f.function);
    expect(names.indexOf('blocked_in_hift_decode')).toBeGreaterThan(names.indexOf('wait'));
    expect(t.frames[0].language).toBe('python');
    expect(r.threads.length).toBe(2);
  });

  it('--native adds the native frames under the Python ones', async () => {
    const r = await dumpProcess({ pySpy: PY_SPY, pid: py.pid!, native: true, limitMs: 5000 });
    if (!r.ok) throw new Error(r.message);
    const t = r.threads.find((x) => x.name === 'code2wav')!;
    expect(t.frames.some((f) => f.language === 'native')).toBe(true);
    expect(t.frames.some((f) => f.function === 'blocked_in_hift_decode' && f.language === 'python')).toBe(true);
  });

  it('a capture of a tree: the gone root is a note, a non-Python descendant only a process error', async () => {
    const sh = spawn('sleep', ['30']);
    try {
      const gonePid = 2 ** 22 - 5;
      const report = await captureTree(
        {
          pySpy: PY_SPY,
          rootPid: gonePid,
          native: false,
          rules: loadPhaseRules(),
          tree: [
            { pid: gonePid, ppid: null, cmdline: '' },
            { pid: sh.pid!, ppid: gonePid, cmdline: 'sleep 30' },
            { pid: py.pid!, ppid: gonePid, cmdline: 'python' },
          ],
        },
        { capture: 1, reason: { kind: 'no_progress', afterS: 1, silentS: 1 }, requestIds: [] },
      );
      expect(report.processes.map((p) => p.error?.code ?? 'ok')).toEqual([
        'STACKS_PROCESS_GONE',
        'STACKS_NOT_PYTHON',
        'ok',
      ]);
      expect(report.notes).toEqual([`process ${gonePid} is gone (it exited before py-spy read it)`]);
      expect(report.stackError).toBeUndefined();
      expect(report.processes[2].threads.length).toBe(2);
    } finally {
      sh.kill('SIGKILL');
    }
  });

  it('py-spy missing: one line with the install command', async () => {
    const r = await dumpProcess({ pySpy: join(dir, 'no-py-spy'), pid: py.pid!, native: false, limitMs: 5000 });
    expect(r).toMatchObject({ ok: false, code: 'STACKS_PYSPY_MISSING' });
    if (!r.ok) {
      expect(r.message).toContain('pip install py-spy');
      expect(r.message).not.toContain('\n');
    }
  });

  it('permission denied: says why (ptrace rights, CAP_SYS_PTRACE, kernel.yama.ptrace_scope)', async () => {
    const pySpy = fake('py-spy-eperm', `echo '${EPERM_TEXT.replace(/'/g, `'"'"'`)}' >&2\nexit 1`);
    const r = await dumpProcess({ pySpy, pid: py.pid!, native: false, limitMs: 5000 });
    expect(r).toMatchObject({ ok: false, code: 'STACKS_PERMISSION' });
    if (!r.ok) {
      expect(r.message).toMatch(/ptrace/);
      expect(r.message).toContain('CAP_SYS_PTRACE');
      expect(r.message).toContain('kernel.yama.ptrace_scope');
      expect(r.message).toContain(`process ${py.pid}`);
    }
  });

  it('a pid that is gone, and a process that is not Python, each say so', async () => {
    const gone = await dumpProcess({ pySpy: PY_SPY, pid: 2 ** 22 - 3, native: false, limitMs: 5000 });
    expect(gone).toMatchObject({ ok: false, code: 'STACKS_PROCESS_GONE' });
    const sh = spawn('sleep', ['30']);
    try {
      const r = await dumpProcess({ pySpy: PY_SPY, pid: sh.pid!, native: false, limitMs: 5000 });
      expect(r).toMatchObject({ ok: false, code: 'STACKS_NOT_PYTHON' });
    } finally {
      sh.kill('SIGKILL');
    }
  });

  it('a dump past its limit is killed, and its process is gone when the promise settles', async () => {
    const pidFile = join(dir, 'slow.pid');
    const pySpy = fake('py-spy-slow', `echo $$ > ${pidFile}\nexec sleep 30`);
    const t0 = performance.now();
    const r = await dumpProcess({ pySpy, pid: py.pid!, native: false, limitMs: 300 });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(r).toMatchObject({ ok: false, code: 'STACKS_TIMEOUT' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});

describe('procfs', () => {
  it('auto finds the process that owns the listening socket of the port', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    try {
      expect(findListenerPid(port)).toBe(process.pid);
      const c = checkServerStacks({ pid: 'auto', captureOnTimeout: true, native: false }, `http://127.0.0.1:${port}`);
      expect(c).toMatchObject({ pid: process.pid, source: 'auto' });
    } finally {
      srv.close();
    }
  });

  it('a pid that does not exist is refused before anything is sent', () => {
    expect(() =>
      checkServerStacks({ pid: 2 ** 22 - 7, captureOnTimeout: true, native: false }, 'http://127.0.0.1:8000'),
    ).toThrow(/no such process/);
  });

  it('auto: no listener, or a base URL that is not loopback, is refused with a message', () => {
    expect(() => findListenerPid(1)).toThrow(/nothing listens on TCP port 1/);
    expect(() =>
      checkServerStacks({ pid: 'auto', captureOnTimeout: true, native: false }, 'http://10.1.2.3:8000'),
    ).toThrow(/loopback/);
  });

  it('walks the descendants from the parent pids, root first', () => {
    const tree = processTree(process.pid);
    expect(tree[0]).toMatchObject({ pid: process.pid, ppid: null });
    expect(tree.find((p) => p.pid === py.pid)).toMatchObject({ ppid: process.pid });
    expect(tree.find((p) => p.pid === py.pid)?.cmdline).toContain('python');
  });
});
