/**
 * The server-stacks probe with below-Python evidence on (the capture a fake,
 * the GPU tool and dmesg real stand-ins on PATH): read once at the first
 * stall — a silence threshold as well as a timeout — and carried by the first
 * capture only; taken even when py-spy is missing (then the result keys are
 * the only evidence); null keys for a run that never stalled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import type { GpuAtStall, KernelLogAtStall } from '#shared/stalls/gpuState.ts';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';
import { ServerStacksProbe } from '#server/engine/probes/serverStacks/probe.ts';
import { loadPhaseRules } from '#server/engine/probes/serverStacks/rules.ts';
import type { Unstamped } from '#server/engine/records/events.ts';
import { standIns, type StandIns } from '#test/helpers/gpuTools.ts';

let tools: StandIns | null = null;
afterEach(() => {
  tools?.cleanup();
  tools = null;
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(o: { stallAfterS?: number; pySpyMissing?: boolean }) {
  tools = standIns({ 'rocm-smi': { fixture: 'rocm-smi-5-mi250.json.txt' }, dmesg: 'dmesgFixture' });
  const emitted: Unstamped[] = [];
  const probe = new ServerStacksProbe({
    config: {
      pid: process.pid,
      captureOnTimeout: o.stallAfterS === undefined,
      stallAfterS: o.stallAfterS,
      native: false,
      pySpy: o.pySpyMissing ? 'py-spy' : process.execPath,
    },
    pid: process.pid,
    pidSource: 'flag',
    rules: loadPhaseRules(),
    path: '/nowhere',
    belowPython: { path: `${tools.bin}:/usr/bin:/bin` },
    capture: async (opts, inp) => ({
      source: 'py-spy',
      capture: inp.capture,
      reason: inp.reason,
      rootPid: opts.rootPid,
      native: false,
      capturedAtMs: Date.now(),
      durationMs: 1,
      phase: 'unknown',
      inferred: null,
      requestIds: inp.requestIds,
      processes: [
        {
          pid: opts.rootPid,
          ppid: null,
          cmdline: 'python',
          threads: [{ name: 'MainThread', tid: 1, active: true, ownsGil: true, frames: [] }],
        },
      ],
      stack: [],
      notes: [],
    }),
  });
  probe.start({ emit: (e) => emitted.push(e), log: () => undefined });
  probe.onEvent({ type: 'request.sent', index: 0, requestId: 'r-0', attempt: 1, t: 0 } as BenchEvent);
  const finish = async () =>
    (await probe.finish()) as {
      gpu_at_stall: GpuAtStall | null;
      kernel_log_at_stall: KernelLogAtStall | null;
      server_stacks: { captures: ServerStacksReport[] };
    };
  return { probe, emitted, finish };
}

describe('below Python in the server-stacks probe', () => {
  it('silence for S s: the first capture carries the GPU state and kernel log, the later ones do not', async () => {
    const s = setup({ stallAfterS: 0.1 });
    await sleep(700);
    const out = await s.finish();
    const caps = out.server_stacks.captures;
    expect(caps.length).toBeGreaterThanOrEqual(2);
    expect(caps[0].gpuAtStall).toEqual(out.gpu_at_stall);
    expect(caps[0].kernelLogAtStall).toEqual(out.kernel_log_at_stall);
    expect(caps.slice(1).every((c) => c.gpuAtStall === undefined && c.kernelLogAtStall === undefined)).toBe(true);
    expect(out.gpu_at_stall!.devices[0].utilization_pct).toBe(100);
    expect(out.kernel_log_at_stall!.lines).toHaveLength(8);
    const events = s.emitted.filter((e) => e.type === 'server.stacks') as { report: ServerStacksReport }[];
    expect(events[0].report.gpuAtStall?.tool).toBe('rocm-smi');
  });

  it('py-spy missing: no capture, but the GPU state and kernel log are still read at the first timeout', async () => {
    const s = setup({ pySpyMissing: true });
    s.probe.onTimeout({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 2 });
    const out = await s.finish();
    expect(out.server_stacks.captures).toEqual([]);
    expect(out.gpu_at_stall).toMatchObject({
      tool: 'rocm-smi',
      devices: [expect.objectContaining({ utilization_pct: 100 })],
    });
    expect(out.kernel_log_at_stall!.lines).toHaveLength(8);
  });

  it('a run that never stalled: both keys null, no tool run', async () => {
    const s = setup({});
    const out = await s.finish();
    expect(out.gpu_at_stall).toBeNull();
    expect(out.kernel_log_at_stall).toBeNull();
  });
});
