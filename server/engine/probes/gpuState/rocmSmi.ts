/**
 * rocm-smi's JSON answer at the stall, parsed: one `cardN` object per device
 * whose keys are the text output's labels, which change between ROCm
 * releases (power is "Average Graphics Package Power (W)" on most cards,
 * "Current Socket Graphics Package Power (W)" on others since ROCm 6,
 * ROCm/rocm_smi_lib#149), every value a string. `--showpids` adds
 * `system: {"PID<pid>": "<name>, <GPU count>, <VRAM bytes>, <SDMA>, <CU>"}`
 * (rocm_smi.py's print2DArray): the count of GPUs, not which one
 * (ROCm/rocm_smi_lib#166), so a PID is placed on a device only when there
 * is one device.
 */
import type { GpuDevice } from '../../../../shared/stalls/gpuState.ts';

export const ROCM_ARGS = [
  '--showuse',
  '--showmemuse',
  '--showpower',
  '--showmeminfo',
  'vram',
  '--showproductname',
  '--showpids',
  '--json',
];

const MIB = 1024 * 1024;

function num(v: unknown): number | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const t = String(v).trim();
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

function first(o: Record<string, unknown>, keys: string[]): unknown {
  for (const k of keys) if (k in o) return o[k];
  return undefined;
}

/** The JSON object in rocm-smi's stdout (warnings may come before it). Throws with a reason. */
function jsonOf(text: string): Record<string, unknown> {
  const at = text.indexOf('{');
  if (at < 0)
    throw new Error(`rocm-smi printed no JSON (first line: ${text.trim().split('\n')[0]?.slice(0, 200) ?? ''})`);
  let v: unknown;
  try {
    v = JSON.parse(text.slice(at));
  } catch (e) {
    throw new Error(`rocm-smi printed malformed JSON: ${(e as Error).message.slice(0, 200)}`, { cause: e });
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('rocm-smi JSON is not an object');
  return v as Record<string, unknown>;
}

export interface RocmAnswer {
  devices: GpuDevice[];
  /** PIDs rocm-smi lists as holding a GPU (KFD processes). */
  pids: number[];
}

export function parseRocmSmi(text: string): RocmAnswer {
  const json = jsonOf(text);
  const devices: GpuDevice[] = [];
  for (const [key, value] of Object.entries(json)) {
    const m = /^card(\d+)$/.exec(key);
    if (!m || !value || typeof value !== 'object') continue;
    const c = value as Record<string, unknown>;
    const usedB = num(c['VRAM Total Used Memory (B)']);
    const totalB = num(c['VRAM Total Memory (B)']);
    const used = usedB === null ? null : Math.round((usedB / MIB) * 10) / 10;
    const total = totalB === null ? null : Math.round((totalB / MIB) * 10) / 10;
    const pct = num(first(c, ['GPU memory use (%)', 'GPU Memory Allocated (VRAM%)']));
    const name = first(c, ['Card series', 'Card Series', 'Device Name', 'Card SKU']);
    devices.push({
      index: Number(m[1]),
      name: (typeof name === 'string' && name.trim() ? name.trim() : key).slice(0, 256),
      id: key,
      utilization_pct: num(c['GPU use (%)']),
      memory_used_mib: used,
      memory_total_mib: total,
      memory_pct: pct ?? (usedB !== null && totalB ? Math.round((usedB / totalB) * 1000) / 10 : null),
      power_w: num(
        first(c, [
          'Average Graphics Package Power (W)',
          'Current Socket Graphics Package Power (W)',
          'Socket Graphics Package Power (W)',
        ]),
      ),
      pids: [],
    });
  }
  if (devices.length === 0) throw new Error('rocm-smi listed no device (no cardN in its JSON)');
  devices.sort((a, b) => a.index - b.index);
  const pids: number[] = [];
  const system = json.system;
  if (system && typeof system === 'object')
    for (const k of Object.keys(system)) {
      const p = /^PID(\d+)$/i.exec(k);
      if (p) pids.push(Number(p[1]));
    }
  return { devices, pids };
}
