/**
 * Whether a stack can be taken at all, asked before anything is sent
 * (docs/design.md#server-stacks): py-spy is there and runs, and this process
 * may ptrace the server. In containers py-spy fails with EPERM without
 * CAP_SYS_PTRACE, and Yama's kernel.yama.ptrace_scope narrows who may trace
 * whom: 0 any process of the same user, 1 only a descendant of the tracer,
 * 2 only with CAP_SYS_PTRACE, 3 nobody. py-spy is our child, never the
 * server's ancestor, so at 1 it needs the capability too. The answer is one
 * line with the reason and the fix; the run goes on without it unless
 * `--require-server-stacks` makes it a refusal.
 */
import { readFileSync } from 'node:fs';
import { runBounded } from '../../../common/runBounded.ts';
import { missingMessage } from './pySpy.ts';

/** CAP_SYS_PTRACE's bit in the capability sets (linux/capability.h). */
const CAP_SYS_PTRACE = 19n;

export interface PtraceFacts {
  /** CapEff of /proc/self/status; null when unreadable. */
  capEff: bigint | null;
  /** kernel.yama.ptrace_scope; null without Yama (classic rules: same user, or the capability). */
  scope: number | null;
  ourUid: number;
  /** The server's real uid from /proc/PID/status; null when unreadable. */
  serverUid: number | null;
  serverPid: number;
}

const FIX_CAP = 'run stallscope with CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE, or as root)';

/** Why ptrace of the server will be refused, with the fix; null when it is allowed. Pure. */
export function ptraceRefusal(f: PtraceFacts): string | null {
  const hasCap = f.capEff !== null && ((f.capEff >> CAP_SYS_PTRACE) & 1n) === 1n;
  if (f.scope === 3)
    return 'server stacks cannot be taken: kernel.yama.ptrace_scope is 3 (no process may be traced until a reboot); boot with a lower kernel.yama.ptrace_scope';
  if (hasCap) return null;
  if (f.scope === 2)
    return `server stacks cannot be taken: kernel.yama.ptrace_scope is 2 (only CAP_SYS_PTRACE may trace) and this process lacks it; ${FIX_CAP}`;
  if (f.serverUid !== null && f.serverUid !== f.ourUid)
    return `server stacks cannot be taken: the server (pid ${f.serverPid}) runs as uid ${f.serverUid}, stallscope as uid ${f.ourUid}, without CAP_SYS_PTRACE; run stallscope as the server's user, or ${FIX_CAP}`;
  if (f.scope === 1)
    return `server stacks cannot be taken: kernel.yama.ptrace_scope is 1 (only a process's ancestors may trace it, and py-spy is not the server's) and this process lacks CAP_SYS_PTRACE; ${FIX_CAP}, or sysctl -w kernel.yama.ptrace_scope=0`;
  return null;
}

function readFacts(serverPid: number): PtraceFacts {
  let capEff: bigint | null = null;
  try {
    const m = /^CapEff:\s*([0-9a-f]+)$/im.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) capEff = BigInt(`0x${m[1]}`);
  } catch {
    /* not Linux, or no /proc */
  }
  let scope: number | null = null;
  try {
    scope = Number(readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8').trim());
  } catch {
    /* no Yama in this kernel */
  }
  let serverUid: number | null = null;
  try {
    const m = /^Uid:\s*(\d+)/m.exec(readFileSync(`/proc/${serverPid}/status`, 'utf8'));
    if (m) serverUid = Number(m[1]);
  } catch {
    /* gone, or hidden */
  }
  return { capEff, scope, ourUid: process.getuid?.() ?? -1, serverUid, serverPid };
}

export type Preflight = { ok: true } | { ok: false; kind: 'missing' | 'not_runnable' | 'no_ptrace'; message: string };

/** py-spy present and runnable (`--version`, bounded, never blocking the loop), then the ptrace rights. */
export async function preflightStacks(pySpy: string, serverPid: number, facts?: PtraceFacts): Promise<Preflight> {
  const r = await runBounded(pySpy, ['--version'], { deadlineMs: 3000, maxBytes: 64 * 1024 });
  if (!r.ok && r.missing) return { ok: false, kind: 'missing', message: missingMessage(pySpy) };
  if (!r.ok || r.code !== 0) {
    const why = !r.ok ? r.reason : (r.stderr || r.stdout).trim().split('\n')[0] || `exit ${r.code ?? 'by a signal'}`;
    return {
      ok: false,
      kind: 'not_runnable',
      message: `server stacks cannot be taken: '${pySpy} --version' does not run (${why.slice(0, 200)}); reinstall it with \`pip install py-spy\` or give --py-spy PATH`,
    };
  }
  const refusal = ptraceRefusal(facts ?? readFacts(serverPid));
  return refusal ? { ok: false, kind: 'no_ptrace', message: refusal } : { ok: true };
}
