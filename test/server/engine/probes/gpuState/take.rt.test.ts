/**
 * The GPU tool and dmesg run for real (stand-in executables first on PATH):
 * recorded outputs parsed with the server tree's PIDs placed on their device;
 * a tool that sleeps for ever killed with its process group at the deadline;
 * one whose SIGTERM-ignoring child keeps stdout open (out of the group)
 * abandoned at the deadline without waiting for it; 100 MB refused early;
 * dmesg refused the log says CAP_SYSLOG / dmesg_restrict.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { takeGpuState } from '#server/engine/probes/gpuState/take.ts';
import { DMESG_PERMISSION, readKernelLog } from '#server/engine/probes/kernelLog/read.ts';
import { runBounded } from '#server/common/runBounded.ts';
import { standIns, type StandIns } from '#test/helpers/gpuTools.ts';
import { waitFor } from '#test/helpers/waitFor.ts';

let tools: StandIns | null = null;
afterEach(() => {
  tools?.cleanup();
  tools = null;
});
const SYS = '/usr/bin:/bin';
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the GPU tool at the stall', () => {
  it('rocm-smi first on PATH (before nvidia-smi): devices, and the server PID from --showpids (one device)', async () => {
    tools = standIns(
      { 'rocm-smi': { fixture: 'rocm-smi-pids.json.txt' }, 'nvidia-smi': 'fail' },
      { pid: 4242, other: 77 },
    );
    const g = await takeGpuState({ serverPids: new Set([4241, 4242]), path: `${tools.bin}:${SYS}` });
    expect(g).toMatchObject({ tool: 'rocm-smi', server_pids: [4242] });
    expect(g.error).toBeUndefined();
    expect(g.devices).toEqual([
      expect.objectContaining({ index: 0, utilization_pct: 100, power_w: 128, pids: [4242] }),
    ]);
  });

  it('nvidia-smi: each server PID on the device whose uuid holds it; a foreign PID left out', async () => {
    tools = standIns(
      { 'nvidia-smi': { gpus: 'nvidia-smi-query-gpu.csv.txt', apps: 'nvidia-smi-compute-apps.csv.txt' } },
      { pid: 4242, other: 77 },
    );
    const g = await takeGpuState({ serverPids: new Set([4242]), path: `${tools.bin}:${SYS}` });
    expect(g.tool).toBe('nvidia-smi');
    expect(g.devices.map((d) => [d.index, d.utilization_pct, d.pids])).toEqual([
      [0, 86, [4242]],
      [1, 0, []],
    ]);
    expect(g.server_pids).toEqual([4242]);
  });

  it('--gpu-smi PATH overrides the lookup; no tool at all is an error, not a throw', async () => {
    tools = standIns({
      'rocm-smi': 'fail',
      'nvidia-smi': { gpus: 'nvidia-smi-query-gpu.csv.txt', apps: 'nvidia-smi-compute-apps.csv.txt' },
    });
    const g = await takeGpuState({ gpuSmi: `${tools.bin}/nvidia-smi`, serverPids: new Set(), path: SYS });
    expect(g.devices).toHaveLength(2);
    const none = await takeGpuState({ serverPids: new Set(), path: '/nonexistent' });
    expect(none).toMatchObject({
      tool: null,
      devices: [],
      error: expect.stringMatching(/no GPU tool on PATH \(rocm-smi, nvidia-smi\)/),
    });
    const failed = await takeGpuState({ serverPids: new Set(), path: `${tools.bin}:${SYS}` });
    expect(failed.error).toMatch(/^rocm-smi exited with 1: stand-in failure/);
  });

  it('a tool that never answers is killed with its group at the deadline; the answer comes then', async () => {
    tools = standIns({ 'rocm-smi': 'sleep' });
    const t0 = performance.now();
    const g = await takeGpuState({ serverPids: new Set(), path: `${tools.bin}:${SYS}`, deadlineMs: 400 });
    const ms = performance.now() - t0;
    expect(g.error).toMatch(/^rocm-smi did not answer within 0\.4 s; killed \(process group \d+\)/);
    expect(ms).toBeGreaterThanOrEqual(390);
    expect(ms).toBeLessThan(400 + 300);
  });

  it('a child that ignores SIGTERM and holds stdout from its own session: abandoned at the deadline, never waited on', async () => {
    tools = standIns({ 'rocm-smi': 'holdOpen' });
    const t0 = performance.now();
    const g = await takeGpuState({ serverPids: new Set(), path: `${tools.bin}:${SYS}`, deadlineMs: 400 });
    expect(performance.now() - t0).toBeLessThan(400 + 300);
    expect(g.error).toMatch(/did not answer within 0\.4 s; killed/);
    // The holder is still alive (out of our reach) — and the answer did not wait for it.
    await waitFor(() => tools!.holders().length === 1, 2000);
    expect(alive(tools.holders()[0])).toBe(true);
  });

  it('100 MB of output is refused at 1 MiB with the reason, long before it is all printed', async () => {
    tools = standIns({ 'rocm-smi': 'huge' });
    const t0 = performance.now();
    const g = await takeGpuState({ serverPids: new Set(), path: `${tools.bin}:${SYS}` });
    expect(g.error).toBe('rocm-smi printed more than 1 MiB; output refused');
    expect(g.devices).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('runBounded', () => {
  it('a tool that exits but whose child keeps the pipe: the exit code and output, cut off shortly after', async () => {
    const t0 = performance.now();
    const r = await runBounded('sh', ['-c', 'echo hello; (sleep 30 &); exit 0'], { deadlineMs: 5000, maxBytes: 1024 });
    expect(r).toMatchObject({ ok: true, code: 0, stdout: 'hello\n' });
    expect(performance.now() - t0).toBeLessThan(1500);
  });
});

describe('the kernel log at the stall', () => {
  it('dmesg --time-format iso: only the GPU hang and reset lines since the run started', async () => {
    tools = standIns({ dmesg: 'dmesgFixture' });
    const k = await readKernelLog({ sinceMs: Date.now() - 60_000, path: `${tools.bin}:${SYS}` });
    expect(k.error).toBeUndefined();
    const messages = k.lines.map((l) => l.replace(/^\S+ /, ''));
    expect(messages).toEqual([
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

  it("busybox's dmesg (no --time-format): its hang lines of any age, saying they are not limited to the run", async () => {
    tools = standIns({ dmesg: 'busybox' });
    const k = await readKernelLog({ sinceMs: Date.now(), path: `${tools.bin}:${SYS}` });
    expect(k.lines).toHaveLength(9);
    expect(k.lines[0]).toBe(
      '[  312.522692] amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=2',
    );
    expect(k.error).toMatch(/no --time-format \(busybox\?\): the lines are not limited to this run/);
  });

  it('refused the log: an error naming CAP_SYSLOG and kernel.dmesg_restrict, no lines', async () => {
    tools = standIns({ dmesg: 'eperm' });
    const k = await readKernelLog({ sinceMs: 0, path: `${tools.bin}:${SYS}` });
    expect(k).toMatchObject({ lines: [], error: DMESG_PERMISSION });
    expect(k.error).toMatch(/CAP_SYSLOG.*kernel\.dmesg_restrict=0/);
  });

  it('a dmesg that never answers is abandoned at its deadline', async () => {
    tools = standIns({ dmesg: 'sleep' });
    const t0 = performance.now();
    const k = await readKernelLog({ sinceMs: 0, path: `${tools.bin}:${SYS}`, deadlineMs: 300 });
    expect(k.error).toMatch(/^dmesg did not answer within 0\.3 s; killed/);
    expect(performance.now() - t0).toBeLessThan(300 + 300);
  });
});
