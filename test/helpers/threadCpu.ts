/**
 * The calling thread's own CPU time in seconds, from the first field of Linux's /proc/thread-self/schedstat (ns on
 * a CPU): it stands still while the thread waits for I/O or is preempted by another process, and V8's background
 * threads are not in it — so a loop stall with as much of it as wall time is the thread's own work, one with little
 * is the machine (the thread waited for a core).
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** The clock, and `close()` for its file descriptor (a child process that exits may leave it to the exit). */
export function threadCpuClock(): (() => number) & { close(): void } {
  const fd = openSync('/proc/thread-self/schedstat', 'r');
  const buf = Buffer.alloc(128);
  const now = () => Number(buf.toString('latin1', 0, readSync(fd, buf, 0, buf.length, 0)).split(' ')[0]) / 1e9;
  return Object.assign(now, { close: () => closeSync(fd) });
}
