/**
 * The calling thread's own CPU time in seconds, from the first field of Linux's /proc/thread-self/schedstat (ns on
 * a CPU): it stands still while the thread waits for I/O or is preempted by another process, and V8's background
 * threads are not in it — so a loop stall with as much of it as wall time is the thread's own work, one with little
 * is the machine (the thread waited for a core).
 */
import { openSync, readSync } from 'node:fs';

export function threadCpuClock(): () => number {
  const fd = openSync('/proc/thread-self/schedstat', 'r');
  const buf = Buffer.alloc(128);
  return () => Number(buf.toString('latin1', 0, readSync(fd, buf, 0, buf.length, 0)).split(' ')[0]) / 1e9;
}
