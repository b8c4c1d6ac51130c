/** The kernel log filter on real amdgpu and NVRM lines (test/fixtures/gpuTools/dmesg-gpu-hang.txt). */
import { describe, expect, it } from 'vitest';
import { cutLine, isGpuHangLine, isoLineMs } from '#server/engine/probes/kernelLog/filter.ts';
import { fixtureBody } from '#test/helpers/gpuTools.ts';

describe('kernel log filter', () => {
  const lines = fixtureBody('dmesg-gpu-hang.txt')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/^OLD /, ''));

  it('keeps the ring timeouts, the process, the resets and the Xid; drops the rest', () => {
    const kept = lines.filter(isGpuHangLine);
    expect(kept).toEqual([
      'amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=2',
      'amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout, signaled seq=57638, emitted seq=57641',
      'amdgpu 0000:28:00.0:  Process cosmic-comp pid 2288 thread cosmic-com:cs0 pid 2316',
      'amdgpu 0000:28:00.0: Ring gfx_0.0.0 reset failed',
      'amdgpu 0000:28:00.0: GPU reset begin!. Source:  1',
      'amdgpu 0000:28:00.0: GPU reset succeeded, trying to resume',
      'amdgpu 0000:28:00.0: VRAM is lost due to GPU reset!',
      '[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=121570, emitted seq=121572',
      'NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.',
    ]);
  });

  it('reads util-linux iso times (comma before the microseconds); none without one', () => {
    expect(isoLineMs('2026-12-06T04:39:27,123456+00:00 Linux version')).toBe(Date.UTC(2026, 11, 6, 4, 39, 27, 123));
    expect(isoLineMs('2026-12-06T05:39:27,000000+01:00 x')).toBe(Date.UTC(2026, 11, 6, 4, 39, 27));
    expect(isoLineMs('[  312.522692] amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout')).toBeNull();
  });

  it('a long line is cut to the bound', () => {
    expect(cutLine('x'.repeat(5000))).toHaveLength(512);
  });
});
