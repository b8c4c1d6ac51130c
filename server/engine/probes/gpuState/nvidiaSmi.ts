/**
 * nvidia-smi's answers at the stall, parsed: one `--query-gpu` line per
 * device and one `--query-compute-apps` line per process holding one
 * (`--format=csv,noheader,nounits`: fields joined by ", ", a value the
 * device does not have written `[N/A]` or `[Not Supported]`). The uuid is
 * asked for too: compute apps name their device by it.
 */
import type { GpuDevice } from '../../../../shared/stalls/gpuState.ts';

export const NVIDIA_GPU_QUERY = [
  '--query-gpu=index,name,uuid,utilization.gpu,memory.used,memory.total,power.draw',
  '--format=csv,noheader,nounits',
];
export const NVIDIA_APPS_QUERY = ['--query-compute-apps=pid,used_memory,gpu_uuid', '--format=csv,noheader,nounits'];

/** A number, or null for `[N/A]`, `[Not Supported]`, `N/A` and anything else that is not one. */
export function csvNumber(s: string | undefined): number | null {
  const t = (s ?? '').trim();
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

/** Devices from `--query-gpu`; throws with a reason when no line has the asked-for fields. */
export function parseNvidiaGpus(text: string): GpuDevice[] {
  const devices: GpuDevice[] = [];
  const bad: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const f = line.split(',').map((x) => x.trim());
    // A name with a comma in it would add fields: the index leads, the five numbers close the line.
    if (f.length < 7 || !/^\d+$/.test(f[0])) {
      bad.push(line);
      continue;
    }
    const tail = f.slice(-5);
    const name = f.slice(1, -5).join(', ');
    const used = csvNumber(tail[2]);
    const total = csvNumber(tail[3]);
    devices.push({
      index: Number(f[0]),
      name: name.slice(0, 256),
      id: tail[0].slice(0, 256),
      utilization_pct: csvNumber(tail[1]),
      memory_used_mib: used,
      memory_total_mib: total,
      memory_pct: used !== null && total ? Math.round((used / total) * 1000) / 10 : null,
      power_w: csvNumber(tail[4]),
      pids: [],
    });
  }
  if (devices.length === 0)
    throw new Error(`nvidia-smi printed no device line${bad.length ? ` (first line: ${bad[0].slice(0, 200)})` : ''}`);
  return devices;
}

export interface ComputeApp {
  pid: number;
  usedMib: number | null;
  uuid: string;
}

/** Processes from `--query-compute-apps` (none: empty output, or "No running processes found"). */
export function parseNvidiaApps(text: string): ComputeApp[] {
  const apps: ComputeApp[] = [];
  for (const raw of text.split('\n')) {
    const f = raw.split(',').map((x) => x.trim());
    if (f.length < 3 || !/^\d+$/.test(f[0])) continue;
    apps.push({ pid: Number(f[0]), usedMib: csvNumber(f[1]), uuid: f[2] });
  }
  return apps;
}
