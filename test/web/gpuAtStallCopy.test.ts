/**
 * A capture's Copy (the text a maintainer pastes into a bug report) carries
 * what was below Python at the stall: each device's use, memory, power and
 * the server PIDs on it, and the kernel's GPU hang/reset lines; a capture
 * without them (not the first, or the flag off) says nothing of a GPU.
 */
import { describe, expect, it } from 'vitest';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';
import { serverStacksText } from '#web/state/serverStacks.ts';

const base: ServerStacksReport = {
  source: 'py-spy',
  capture: 1,
  reason: { kind: 'first_timeout', requestIndex: 0, requestId: 'run-0', timeoutKind: 'total', elapsedS: 2 },
  rootPid: 100,
  native: false,
  capturedAtMs: 1_700_000_002_000,
  durationMs: 80,
  phase: 'unknown',
  inferred: null,
  requestIds: ['run-0'],
  processes: [{ pid: 100, ppid: null, cmdline: 'python server.py', threads: [] }],
  stack: [],
  notes: [],
};

describe('Copy of a capture with the GPU state', () => {
  it('says each device and the kernel lines', () => {
    const text = serverStacksText({
      ...base,
      gpuAtStall: {
        tool: 'rocm-smi',
        took_ms: 412,
        server_pids: [101],
        devices: [
          {
            index: 0,
            name: 'AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2',
            id: 'card0',
            utilization_pct: 100,
            memory_used_mib: null,
            memory_total_mib: null,
            memory_pct: 0,
            power_w: 128,
            pids: [101],
          },
        ],
      },
      kernelLogAtStall: {
        took_ms: 30,
        lines: [
          '2026-12-06T11:36:22,639349+00:00 amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout, signaled seq=57638, emitted seq=57641',
        ],
      },
    });
    expect(text).toContain('gpu at the stall (rocm-smi, 412 ms): GPU 0 busy 100 % at the stall');
    expect(text).toContain(
      '  GPU 0 AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2 (card0): use 100 %, memory ? / ? (0 %), power 128 W, server pids 101',
    );
    expect(text).toContain('kernel log at the stall: 1 GPU hang/reset line since the run started');
    expect(text).toContain('  2026-12-06T11:36:22,639349+00:00 amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout');
  });

  it('a refused kernel log says why; no GPU state, no GPU line', () => {
    const refused = serverStacksText({
      ...base,
      kernelLogAtStall: {
        took_ms: 3,
        lines: [],
        error: 'dmesg may not read the kernel log (permission denied): it needs CAP_SYSLOG',
      },
    });
    expect(refused).toMatch(
      /kernel log at the stall: 0 GPU hang\/reset lines since the run started \(dmesg may not read .*CAP_SYSLOG\)/,
    );
    expect(serverStacksText(base)).not.toMatch(/gpu at the stall|kernel log/i);
  });
});
