/**
 * The GPU tools' parsers on real outputs (test/fixtures/gpuTools/, each citing
 * where it was recorded): rocm-smi JSON of several ROCm releases with their
 * changing power and memory keys, nvidia-smi's CSV with `[N/A]` and
 * `[Not Supported]`, compute apps; malformed output refused with a reason.
 */
import { describe, expect, it } from 'vitest';
import { parseRocmSmi } from '#server/engine/probes/gpuState/rocmSmi.ts';
import { parseNvidiaApps, parseNvidiaGpus } from '#server/engine/probes/gpuState/nvidiaSmi.ts';
import { Value } from 'typebox/value';
import {
  GpuAtStallSchema,
  gpuDeviceText,
  gpuStateText,
  storableGpu,
  storableKernelLog,
} from '#shared/stalls/gpuState.ts';
import { fixtureBody } from '#test/helpers/gpuTools.ts';

describe('rocm-smi --json', () => {
  it('ROCm 5 MI250, busy: use 100 %, average power, memory %, the card series as its name', () => {
    const a = parseRocmSmi(fixtureBody('rocm-smi-5-mi250.json.txt'));
    expect(a.devices).toEqual([
      {
        index: 0,
        name: 'AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2',
        id: 'card0',
        utilization_pct: 100,
        memory_used_mib: null,
        memory_total_mib: null,
        memory_pct: 0,
        power_w: 128,
        pids: [],
      },
    ]);
    expect(gpuDeviceText(a.devices[0])).toBe('GPU 0 busy 100 % at the stall');
  });

  it('ROCm 6 RX 7900 XTX, idle: VRAM bytes to MiB and their percentage', () => {
    const [d] = parseRocmSmi(fixtureBody('rocm-smi-6-7900xtx.json.txt')).devices;
    expect(d).toMatchObject({ index: 0, name: 'card0', utilization_pct: 0, power_w: 19 });
    expect(d.memory_used_mib).toBeCloseTo(757.5, 1);
    expect(d.memory_total_mib).toBeCloseTo(24560, 0);
    expect(d.memory_pct).toBe(3.1);
    expect(gpuDeviceText(d)).toBe('GPU 0 idle (0 %) at the stall');
  });

  it('"Card Series" (capitalised, 2026) names the device; no power asked: null', () => {
    const [d] = parseRocmSmi(fixtureBody('rocm-smi-6-productname.json.txt')).devices;
    expect(d).toMatchObject({ name: 'Radeon RX 7900 XT', utilization_pct: 0, power_w: null });
  });

  it('rocm-smi 1.4.1 with memory use only: two devices, utilisation unknown (null, not 0)', () => {
    const a = parseRocmSmi(fixtureBody('rocm-smi-1.4-memuse.json.txt'));
    expect(a.devices.map((d) => [d.index, d.utilization_pct, d.memory_pct])).toEqual([
      [0, null, 0],
      [1, null, 0],
    ]);
    expect(gpuDeviceText(a.devices[1])).toBe('GPU 1 utilisation unknown at the stall');
  });

  it('current socket power (ROCm 6), "GPU Memory Allocated (VRAM%)", and a secondary die\'s "N/A" power', () => {
    const a = parseRocmSmi(fixtureBody('rocm-smi-6-socket-power.json.txt'));
    expect(a.devices.map((d) => [d.power_w, d.memory_pct])).toEqual([
      [191, 95],
      [null, 0],
    ]);
  });

  it('--showpids: the KFD PIDs from `system`', () => {
    const a = parseRocmSmi(fixtureBody('rocm-smi-pids.json.txt').replace('@PID@', '1168514').replace('@OTHER@', '7'));
    expect(a.pids.sort()).toEqual([1168514, 7].sort());
  });

  it('malformed output is refused with a reason', () => {
    expect(() => parseRocmSmi('ERROR: GPU[0] : Unable to get GPU use.')).toThrow(
      /printed no JSON.*Unable to get GPU use/,
    );
    expect(() => parseRocmSmi('{"card0": {"GPU use (%)": "1"')).toThrow(/malformed JSON/);
    expect(() => parseRocmSmi('{"system": {}}')).toThrow(/listed no device/);
  });
});

describe('nvidia-smi --format=csv,noheader,nounits', () => {
  it('one device per line; [Not Supported] power is null; memory % from used / total', () => {
    const ds = parseNvidiaGpus(fixtureBody('nvidia-smi-query-gpu.csv.txt'));
    expect(ds).toEqual([
      {
        index: 0,
        name: 'GeForce RTX 2080',
        id: 'GPU-22b2c6ac-2d49-4863-197c-9c469071178a',
        utilization_pct: 86,
        memory_used_mib: 1934,
        memory_total_mib: 7979,
        memory_pct: 24.2,
        power_w: 176.98,
        pids: [],
      },
      {
        index: 1,
        name: 'GeForce GTX 1660 Ti',
        id: 'GPU-e18afb8d-1627-f8ff-2ba3-c05c5a8e9e67',
        utilization_pct: 0,
        memory_used_mib: 5,
        memory_total_mib: 5944,
        memory_pct: 0.1,
        power_w: null,
        pids: [],
      },
    ]);
    expect(gpuStateText({ tool: 'nvidia-smi', took_ms: 1, devices: ds, server_pids: [] })).toBe(
      'GPU 0 busy 86 % at the stall; GPU 1 idle (0 %) at the stall',
    );
  });

  it('compute apps: pid, used memory, device uuid; "No running processes found" is none', () => {
    const apps = parseNvidiaApps(
      fixtureBody('nvidia-smi-compute-apps.csv.txt').replace('@PID@', '42').replace('@OTHER@', '43'),
    );
    expect(apps).toEqual([
      { pid: 42, usedMib: 1024, uuid: 'GPU-22b2c6ac-2d49-4863-197c-9c469071178a' },
      { pid: 43, usedMib: 200, uuid: 'GPU-e18afb8d-1627-f8ff-2ba3-c05c5a8e9e67' },
    ]);
    expect(parseNvidiaApps('No running processes found\n')).toEqual([]);
  });

  it('no device line (an error message, a header) is refused with the first line', () => {
    expect(() =>
      parseNvidiaGpus("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"),
    ).toThrow(/no device line \(first line: NVIDIA-SMI has failed/);
    expect(() => parseNvidiaGpus('index, name, uuid\n')).toThrow(/no device line/);
  });
});

describe('storable', () => {
  it('a NUL (which jsonb refuses) or another control character in a name, an error or a kernel line becomes a space; long text is cut', () => {
    const { devices } = parseRocmSmi('{"card0": {"GPU use (%)": "5", "Card series": "MI\\u0000300\\u001b[31m"}}');
    const g = storableGpu({
      tool: 'rocm-smi',
      took_ms: 3,
      devices,
      server_pids: [],
      error: `x\u0000${'e'.repeat(5000)}`,
    });
    expect(g.devices[0].name).toBe('MI 300 [31m');
    expect(g.error).toHaveLength(2048);
    expect(g.error!.startsWith('x e')).toBe(true);
    expect(Value.Check(GpuAtStallSchema, g)).toBe(true);
    expect(storableKernelLog({ took_ms: 1, lines: ['amdgpu\u0000 ring gfx timeout'] }).lines).toEqual([
      'amdgpu  ring gfx timeout',
    ]);
  });
});
