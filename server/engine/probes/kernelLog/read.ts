/**
 * The kernel log at the first stall (docs/design.md#below-python): util-linux
 * `dmesg --time-format iso`, run once under a hard deadline, read line by
 * line and never kept whole: only the GPU driver's hang and reset lines
 * logged since the run started, the last MAX_KERNEL_LINES. Reading the log
 * needs CAP_SYSLOG or kernel.dmesg_restrict=0: a refusal is the record's
 * `error`, saying which, never a failure of the run. Never throws.
 */
import { findOnPath } from '../../../common/onPath.ts';
import { runBounded } from '../../../common/runBounded.ts';
import { MAX_KERNEL_LINES, type KernelLogAtStall } from '../../../../shared/stalls/gpuState.ts';
import { cutLine, isGpuHangLine, isoLineMs } from './filter.ts';

export const DMESG_DEADLINE_MS = 5000;
/** The kernel's ring buffer is at most 32 MiB (CONFIG_LOG_BUF_SHIFT ≤ 25): more is not a kernel log. */
export const DMESG_MAX_BYTES = 32 * 1024 * 1024;

export interface KernelLogOptions {
  /** Wall-clock ms the run started: older lines are another run's. */
  sinceMs: number;
  deadlineMs?: number;
  maxBytes?: number;
  /** Tests: the PATH dmesg is looked up on. */
  path?: string;
}

export const DMESG_PERMISSION =
  'dmesg may not read the kernel log (permission denied): it needs CAP_SYSLOG (docker run --cap-add SYSLOG) ' +
  'or kernel.dmesg_restrict=0 (sysctl -w kernel.dmesg_restrict=0)';

export async function readKernelLog(o: KernelLogOptions): Promise<KernelLogAtStall> {
  const t0 = performance.now();
  const took = () => Math.round(performance.now() - t0);
  const dmesg = findOnPath('dmesg', o.path ?? process.env.PATH ?? '');
  if (!dmesg) return { lines: [], took_ms: took(), error: 'dmesg not found on PATH (util-linux)' };
  const deadlineMs = o.deadlineMs ?? DMESG_DEADLINE_MS;
  let lines: string[] = [];
  const read = (args: string[], ms: number) => {
    lines = [];
    return runBounded(dmesg, args, {
      deadlineMs: ms,
      maxBytes: o.maxBytes ?? DMESG_MAX_BYTES,
      onLine: (line) => {
        if (!isGpuHangLine(line)) return;
        const at = isoLineMs(line);
        // A line without a time cannot be placed: kept (a hang line of unknown age beats none).
        if (at !== null && at < o.sinceMs) return;
        lines.push(cutLine(line));
        if (lines.length > MAX_KERNEL_LINES) lines.shift();
      },
    });
  };
  let r = await read(['--time-format', 'iso'], deadlineMs);
  let note: string | undefined;
  // busybox's dmesg (Alpine images) has no --time-format: its lines, of any age, in the time that is left.
  if (r.ok && r.code !== 0 && /(unrecognized|invalid|unknown) option/i.test(r.stderr)) {
    r = await read([], Math.max(1, deadlineMs - took()));
    note = 'this dmesg has no --time-format (busybox?): the lines are not limited to this run';
  }
  if (!r.ok) return { lines, took_ms: took(), error: `dmesg ${r.reason}` };
  if (r.code !== 0) {
    const why = r.stderr.trim().split('\n')[0] ?? '';
    if (/not permitted|permission denied|EPERM/i.test(r.stderr))
      return { lines: [], took_ms: took(), error: DMESG_PERMISSION };
    return { lines, took_ms: took(), error: `dmesg exited with ${r.code ?? 'a signal'}: ${why.slice(0, 300)}` };
  }
  return note ? { lines, took_ms: took(), error: note } : { lines, took_ms: took() };
}
