/**
 * The GPU's state at the first stall (docs/design.md#below-python): the tool
 * found on PATH — `rocm-smi`, else `nvidia-smi` (not `amd-smi`, which hung in
 * uninterruptible sleep: vllm-project/vllm-omni#6704), or `--gpu-smi PATH` —
 * run once under a hard deadline (server/common/runBounded.ts), its output
 * bounded and parsed into one record per device, with the server tree's
 * PIDs holding each. Never throws: whatever goes wrong is the `error`.
 */
import { basename } from 'node:path';
import type { GpuAtStall, GpuDevice } from '../../../../shared/stalls/gpuState.ts';
import { MAX_GPU_DEVICES } from '../../../../shared/stalls/gpuState.ts';
import { findOnPath } from '../../../common/onPath.ts';
import { runBounded, type Bounded } from '../../../common/runBounded.ts';
import { NVIDIA_APPS_QUERY, NVIDIA_GPU_QUERY, parseNvidiaApps, parseNvidiaGpus } from './nvidiaSmi.ts';
import { parseRocmSmi, ROCM_ARGS } from './rocmSmi.ts';

/** The tool's hard deadline: a healthy rocm-smi answers in about a second. */
export const GPU_TOOL_DEADLINE_MS = 5000;
/** A tool's output is at most this (a node's answer is a few KiB). */
export const GPU_TOOL_MAX_BYTES = 1024 * 1024;

export interface GpuStateOptions {
  /** `--gpu-smi PATH`; default rocm-smi, else nvidia-smi, from PATH. */
  gpuSmi?: string;
  /** The server's tree at the stall: only its PIDs are kept. */
  serverPids: ReadonlySet<number>;
  deadlineMs?: number;
  maxBytes?: number;
  /** Tests: the PATH tools are looked up on. */
  path?: string;
}

type Kind = 'rocm' | 'nvidia';

function pickTool(o: GpuStateOptions): { cmd: string; kind: Kind } | string {
  const path = o.path ?? process.env.PATH ?? '';
  if (o.gpuSmi) {
    if (!findOnPath(o.gpuSmi, path)) return `--gpu-smi '${o.gpuSmi}' is not an executable file`;
    return { cmd: o.gpuSmi, kind: /nvidia/i.test(basename(o.gpuSmi)) ? 'nvidia' : 'rocm' };
  }
  const rocm = findOnPath('rocm-smi', path);
  if (rocm) return { cmd: rocm, kind: 'rocm' };
  const nvidia = findOnPath('nvidia-smi', path);
  if (nvidia) return { cmd: nvidia, kind: 'nvidia' };
  return 'no GPU tool on PATH (rocm-smi, nvidia-smi); give --gpu-smi PATH';
}

function toolError(name: string, r: Bounded): string | null {
  if (!r.ok) return `${name} ${r.reason}`;
  if (r.code !== 0) {
    const why = r.stderr.trim().split('\n')[0] || r.stdout.trim().split('\n')[0] || 'no message';
    return `${name} exited with ${r.code ?? 'a signal'}: ${why.slice(0, 300)}`;
  }
  return null;
}

export async function takeGpuState(o: GpuStateOptions): Promise<GpuAtStall> {
  const t0 = performance.now();
  const took = () => Math.round(performance.now() - t0);
  const tool = pickTool(o);
  if (typeof tool === 'string') return { tool: null, took_ms: took(), devices: [], server_pids: [], error: tool };
  const name = o.gpuSmi ?? basename(tool.cmd);
  const bound = { deadlineMs: o.deadlineMs ?? GPU_TOOL_DEADLINE_MS, maxBytes: o.maxBytes ?? GPU_TOOL_MAX_BYTES };
  const base = { tool: name, devices: [] as GpuDevice[], server_pids: [] as number[] };
  try {
    if (tool.kind === 'rocm') {
      const r = await runBounded(tool.cmd, ROCM_ARGS, bound);
      const err = toolError(name, r);
      if (err || !r.ok) return { ...base, took_ms: took(), error: err ?? undefined };
      const a = parseRocmSmi(r.stdout);
      const held = a.pids.filter((p) => o.serverPids.has(p));
      // rocm-smi says how many GPUs a PID holds, not which: placed only when there is one device.
      if (a.devices.length === 1) a.devices[0].pids = held;
      return finish({ ...base, devices: a.devices, server_pids: held }, took());
    }
    // The two questions together, under one deadline: a device list without its processes is still an answer.
    const [gpus, apps] = await Promise.all([
      runBounded(tool.cmd, NVIDIA_GPU_QUERY, bound),
      runBounded(tool.cmd, NVIDIA_APPS_QUERY, bound),
    ]);
    const err = toolError(name, gpus);
    if (err || !gpus.ok) return { ...base, took_ms: took(), error: err ?? undefined };
    const devices = parseNvidiaGpus(gpus.stdout);
    const appsErr = toolError(`${name} --query-compute-apps`, apps);
    const held = appsErr || !apps.ok ? [] : parseNvidiaApps(apps.stdout).filter((a) => o.serverPids.has(a.pid));
    for (const a of held) devices.find((d) => d.id === a.uuid)?.pids.push(a.pid);
    return finish(
      { ...base, devices, server_pids: [...new Set(held.map((a) => a.pid))], error: appsErr ?? undefined },
      took(),
    );
  } catch (e) {
    return { ...base, took_ms: took(), error: (e as Error).message.slice(0, 2000) };
  }
}

function finish(g: Omit<GpuAtStall, 'took_ms'>, tookMs: number): GpuAtStall {
  const over = g.devices.length - MAX_GPU_DEVICES;
  const out: GpuAtStall = { ...g, took_ms: tookMs, devices: g.devices.slice(0, MAX_GPU_DEVICES) };
  if (over > 0) out.error = `${g.tool} listed ${g.devices.length} devices; the first ${MAX_GPU_DEVICES} are kept`;
  if (out.error === undefined) delete out.error;
  return out;
}
