/**
 * One dashboard per data directory: a lock file (`stallscope.lock`) holding
 * the owner's pid and port, created exclusively (O_EXCL). A second dashboard
 * on the same directory would otherwise mark the first one's live runs
 * `interrupted` on start and interleave writes with it. A lock whose pid no
 * longer runs (the owner was SIGKILLed or the machine rebooted) is stale and
 * taken over.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StallscopeError } from '../../../../shared/errors.ts';

export const LOCK_FILE = 'stallscope.lock';

export interface LockOwner {
  pid: number;
  port: number | null;
  host: string | null;
  startedAtMs: number;
}

export interface DataDirLock {
  readonly file: string;
  /** Records the port once the server listens (the second dashboard names it). */
  setAddress(host: string, port: number): void;
  /** Removes the lock if it is still ours. Idempotent. */
  release(): void;
}

function readOwner(file: string): LockOwner | null {
  try {
    const o = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    return typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0
      ? { pid: o.pid, port: o.port ?? null, host: o.host ?? null, startedAtMs: o.startedAtMs ?? 0 }
      : null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock or throws STORE_LOCKED naming the owner's pid and port. */
export function lockDataDir(dataDir: string, now = Date.now()): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  const mine: LockOwner = { pid: process.pid, port: null, host: null, startedAtMs: now };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = readOwner(file);
      if (owner && owner.pid !== process.pid && pidAlive(owner.pid)) {
        const where = owner.port !== null ? ` listening on ${owner.host ?? '127.0.0.1'}:${owner.port}` : ' (starting)';
        throw new StallscopeError(
          'STORE_LOCKED',
          `${dataDir} is used by the dashboard with pid ${owner.pid}${where}; stop it or give this one another --data-dir`,
        );
      }
      if (owner?.pid === process.pid) {
        throw new StallscopeError('STORE_LOCKED', `${dataDir} is already open in this process (pid ${process.pid})`);
      }
      // Stale (its owner is gone, or the file is unreadable): set it aside atomically, then try again.
      try {
        renameSync(file, `${file}.stale-${process.pid}`);
        rmSync(`${file}.stale-${process.pid}`, { force: true });
      } catch {
        /* another starter took it over first: the next attempt sees its lock */
      }
      continue;
    }
    writeSync(fd, JSON.stringify(mine));
    closeSync(fd);
    let released = false;
    return {
      file,
      setAddress(host, port) {
        mine.host = host;
        mine.port = port;
        if (!released) writeFileSync(file, JSON.stringify(mine));
      },
      release() {
        if (released) return;
        released = true;
        if (readOwner(file)?.pid === process.pid) rmSync(file, { force: true });
      },
    };
  }
  throw new StallscopeError(
    'STORE_LOCKED',
    `${dataDir}: could not take ${LOCK_FILE} (another dashboard keeps taking it)`,
  );
}
