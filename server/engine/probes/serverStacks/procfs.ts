/**
 * The server's process tree from /proc (Linux): which process listens on a
 * TCP port (`--server-pid auto`: /proc/net/tcp{,6} give the listening
 * socket's inode, /proc/PID/fd links name it), and the descendants of a pid
 * from the parent pids in /proc/PID/stat. py-spy's own `--subprocesses` is
 * not used: its JSON dump returns only the parent's threads (py-spy 0.4.2).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { StallscopeError } from '../../../../shared/errors.ts';

export interface ProcInfo {
  pid: number;
  /** Parent pid; null for the root of a walked tree. */
  ppid: number | null;
  cmdline: string;
}

/** At most this many processes are walked (a server tree is tens). */
export const MAX_TREE = 256;
const TCP_LISTEN = '0A';

function pids(procRoot: string): number[] {
  return readdirSync(procRoot)
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** Inodes of the sockets listening on `port` (IPv4 and IPv6). */
export function listeningInodes(port: number, procRoot = '/proc'): Set<string> {
  const out = new Set<string>();
  for (const table of ['net/tcp', 'net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(`${procRoot}/${table}`, 'utf8');
    } catch {
      continue; // no IPv6 in this kernel/namespace
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== TCP_LISTEN) continue;
      const localPort = parseInt(f[1].split(':').pop() ?? '', 16);
      if (localPort === port && f[9] !== '0') out.add(f[9]);
    }
  }
  return out;
}

/** Parent pid and command name from /proc/PID/stat (comm may hold spaces and parentheses). */
export function readStat(pid: number, procRoot = '/proc'): { ppid: number; comm: string } | null {
  try {
    const s = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const rest = s.slice(close + 2).split(' ');
    return { ppid: Number(rest[1]), comm };
  } catch {
    return null;
  }
}

export function readCmdline(pid: number, procRoot = '/proc'): string {
  try {
    const raw = readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8');
    // Trailing NULs dropped by hand: `/\0+$/` retried each NUL of a long run of empty arguments (quadratic).
    let end = raw.length;
    while (end > 0 && raw.charCodeAt(end - 1) === 0) end--;
    const s = raw.slice(0, end).split('\0').join(' ');
    return s.length > 1000 ? `${s.slice(0, 1000)}…` : s;
  } catch {
    return '';
  }
}

/**
 * The process listening on `port`: the owner of the listening socket; when
 * several share it (a forking server), the one whose parent is not among them.
 * Throws CONFIG_SERVER_PID saying why none was found.
 */
export function findListenerPid(port: number, procRoot = '/proc'): number {
  const inodes = listeningInodes(port, procRoot);
  if (inodes.size === 0)
    throw new StallscopeError(
      'CONFIG_SERVER_PID',
      `--server-pid auto: nothing listens on TCP port ${port} on this machine (is the server up, and in this network namespace?)`,
      'evidence.serverStacks.pid',
    );
  const owners: number[] = [];
  let unreadable = 0;
  for (const pid of pids(procRoot)) {
    let fds: string[];
    try {
      fds = readdirSync(`${procRoot}/${pid}/fd`);
    } catch {
      unreadable++;
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`${procRoot}/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1])) {
        owners.push(pid);
        break;
      }
    }
  }
  if (owners.length === 0)
    throw new StallscopeError(
      'CONFIG_SERVER_PID',
      `--server-pid auto: port ${port} is listening, but its owner is not ours to read` +
        (unreadable
          ? ` (${unreadable} processes' file descriptors could not be read: run as the server's user or root)`
          : '') +
        '; give --server-pid PID',
      'evidence.serverStacks.pid',
    );
  const set = new Set(owners);
  const roots = owners.filter((p) => !set.has(readStat(p, procRoot)?.ppid ?? -1));
  return Math.min(...(roots.length ? roots : owners));
}

/** The root and every descendant, breadth first (root first), bounded by MAX_TREE. */
export function processTree(root: number, procRoot = '/proc'): ProcInfo[] {
  const children = new Map<number, number[]>();
  for (const pid of pids(procRoot)) {
    const st = readStat(pid, procRoot);
    if (!st) continue;
    const list = children.get(st.ppid);
    if (list) list.push(pid);
    else children.set(st.ppid, [pid]);
  }
  const out: ProcInfo[] = [{ pid: root, ppid: null, cmdline: readCmdline(root, procRoot) }];
  for (let i = 0; i < out.length && out.length < MAX_TREE; i++) {
    for (const c of (children.get(out[i].pid) ?? []).sort((a, b) => a - b)) {
      if (out.length >= MAX_TREE) break;
      out.push({ pid: c, ppid: out[i].pid, cmdline: readCmdline(c, procRoot) });
    }
  }
  return out;
}
