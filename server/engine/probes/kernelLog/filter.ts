/**
 * Which kernel log lines are the GPU driver's hang and reset lines, and when
 * a line was logged. amdgpu writes `ring gfx_0.0.0 timeout, signaled seq=…,
 * emitted seq=…`, the offending process, then `GPU reset begin!` … `GPU reset
 * succeeded` (and `VRAM is lost due to GPU reset!`); NVIDIA's driver writes
 * `NVRM: Xid (PCI:…): N, …` and, for a GPU gone from the bus, `NVRM: … fallen
 * off the bus`. Pure: the fixtures in test/fixtures/kernelLog/ are real lines.
 */
import { KERNEL_LINE_MAX } from '../../../../shared/stalls/gpuState.ts';

const DRIVER = /\bamdgpu\b|\[drm\b|\bdrm:/i;
const HANG =
  /ring \S+ timeout|\bGPU reset\b|ring \S+ reset|VRAM is lost|amdgpu_job_timedout|Process information|\bProcess \S* ?pid \d+|GPU hang|MES failed/i;
const NVIDIA = /\bNVRM: Xid\b|\bNVRM:.*fallen off the bus/i;

export function isGpuHangLine(line: string): boolean {
  return NVIDIA.test(line) || (DRIVER.test(line) && HANG.test(line));
}

/**
 * The wall-clock ms of a `dmesg --time-format iso` line
 * (`2026-12-06T04:39:27,123456+00:00 message`), or null when it has none.
 */
export function isoLineMs(line: string): number | null {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)[,.](\d+)([+-]\d\d:?\d\d|Z)\s/.exec(line);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}.${m[2].slice(0, 3).padEnd(3, '0')}${m[3]}`);
  return Number.isNaN(ms) ? null : ms;
}

export function cutLine(line: string): string {
  return line.length > KERNEL_LINE_MAX ? `${line.slice(0, KERNEL_LINE_MAX - 1)}…` : line;
}
