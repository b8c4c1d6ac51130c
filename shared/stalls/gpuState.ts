/**
 * Evidence below Python at the first stall (docs/design.md#below-python):
 * the GPU's state as `rocm-smi` or `nvidia-smi` reported it, and the kernel
 * log's GPU hang and reset lines. Written once in the result file's own
 * snake_case shape (`gpu_at_stall`, `kernel_log_at_stall`); the first
 * server-stacks capture carries the same objects, so the stall report, the
 * run page, the evidence file and the board read one shape. Every list and
 * string is bounded: a tool's output is a peer's choice.
 */
import { Type, type Static } from 'typebox';

/** Devices kept per report (a node has 8; a bigger list is a tool gone wrong). */
export const MAX_GPU_DEVICES = 64;
/** Kernel log lines kept (the last ones). */
export const MAX_KERNEL_LINES = 200;
/** A kernel log line is cut to this many characters. */
export const KERNEL_LINE_MAX = 512;
const Text = (max = 256) => Type.String({ maxLength: max });
const Num = Type.Union([Type.Number(), Type.Null()]);

export const GpuDeviceSchema = Type.Object({
  /** The tool's device index (`nvidia-smi` index, rocm-smi's `cardN`). */
  index: Type.Integer({ minimum: 0 }),
  /** Product name when the tool says it, else its id. */
  name: Text(),
  /** The tool's id: a GPU UUID (nvidia-smi) or `cardN` (rocm-smi). */
  id: Text(),
  /** Busy percentage at the stall (GPU use); null when the tool could not say. */
  utilization_pct: Num,
  memory_used_mib: Num,
  memory_total_mib: Num,
  /** Memory in use as a percentage (given by rocm-smi, or computed from used / total). */
  memory_pct: Num,
  power_w: Num,
  /** Processes of the server's tree holding this device, when the tool says which device. */
  pids: Type.Array(Type.Integer(), { maxItems: 1024 }),
});
export type GpuDevice = Static<typeof GpuDeviceSchema>;

export const GpuAtStallSchema = Type.Object({
  /** The tool that answered (`rocm-smi`, `nvidia-smi`, or the `--gpu-smi` path); null when none was found. */
  tool: Type.Union([Text(4096), Type.Null()]),
  /** From starting the tool to its answer, or to giving up at the deadline. */
  took_ms: Type.Number(),
  devices: Type.Array(GpuDeviceSchema, { maxItems: MAX_GPU_DEVICES }),
  /** Processes of the server's tree the tool lists as holding a GPU (which one, when it does not say, unknown). */
  server_pids: Type.Array(Type.Integer(), { maxItems: 1024 }),
  /** Why there is no (or only part of an) answer: no tool, killed at the deadline, output refused. */
  error: Type.Optional(Text(2048)),
});
export type GpuAtStall = Static<typeof GpuAtStallSchema>;

export const KernelLogAtStallSchema = Type.Object({
  /** The GPU driver's hang and reset lines since the run started, oldest first, the last MAX_KERNEL_LINES. */
  lines: Type.Array(Text(KERNEL_LINE_MAX), { maxItems: MAX_KERNEL_LINES }),
  took_ms: Type.Number(),
  /** Why the log could not be read (permission: CAP_SYSLOG / kernel.dmesg_restrict), or was read in part. */
  error: Type.Optional(Text(2048)),
});
export type KernelLogAtStall = Static<typeof KernelLogAtStallSchema>;

/**
 * A tool's text made storable: control characters (NUL above all, which PostgreSQL's jsonb refuses) become
 * spaces, and the text is cut to its schema bound — a tool's output is a peer's choice.
 */
export function printable(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what is removed
  const t = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The GPU state as stored and sent: every text printable and within its bound. */
export function storableGpu(g: GpuAtStall): GpuAtStall {
  return {
    ...g,
    tool: g.tool === null ? null : printable(g.tool, 4096),
    devices: g.devices.map((d) => ({ ...d, name: printable(d.name, 256), id: printable(d.id, 256) })),
    ...(g.error !== undefined ? { error: printable(g.error, 2048) } : {}),
  };
}

/** The kernel log record as stored and sent (lines already cut; their control characters too). */
export function storableKernelLog(k: KernelLogAtStall): KernelLogAtStall {
  return {
    ...k,
    lines: k.lines.map((l) => printable(l, KERNEL_LINE_MAX)),
    ...(k.error !== undefined ? { error: printable(k.error, 2048) } : {}),
  };
}

/** At or above it a device is "busy"; at or below IDLE_PCT "idle"; between, its percentage is said. */
export const BUSY_PCT = 80;
export const IDLE_PCT = 10;

/** One device in words: "GPU 0 busy 100 % at the stall", "GPU 1 idle (0 %) at the stall". */
export function gpuDeviceText(d: GpuDevice): string {
  const u = d.utilization_pct;
  if (u === null) return `GPU ${d.index} utilisation unknown at the stall`;
  if (u >= BUSY_PCT) return `GPU ${d.index} busy ${u} % at the stall`;
  if (u <= IDLE_PCT) return `GPU ${d.index} idle (${u} %) at the stall`;
  return `GPU ${d.index} at ${u} % at the stall`;
}

/** The whole GPU state in one line, for the console, the stall card and Copy. */
export function gpuStateText(g: GpuAtStall): string {
  if (g.devices.length === 0) return `GPU state at the stall: ${g.error ?? 'the tool listed no device'}`;
  const devices = g.devices.map(gpuDeviceText).join('; ');
  return g.error ? `${devices} (${g.error})` : devices;
}

const val = (n: number | null, unit: string) => (n === null ? '?' : `${n}${unit}`);

/** The GPU state and kernel log as plain lines, for a bug report (the card's Copy). */
export function belowPythonLines(g: GpuAtStall | undefined, k: KernelLogAtStall | undefined): string[] {
  const out: string[] = [];
  if (g) {
    out.push(`gpu at the stall (${g.tool ?? 'no tool'}, ${g.took_ms} ms): ${gpuStateText(g)}`);
    for (const d of g.devices)
      out.push(
        `  GPU ${d.index} ${d.name} (${d.id}): use ${val(d.utilization_pct, ' %')}, memory ${val(d.memory_used_mib, ' MiB')} / ${val(d.memory_total_mib, ' MiB')} (${val(d.memory_pct, ' %')}), power ${val(d.power_w, ' W')}` +
          (d.pids.length ? `, server pids ${d.pids.join(' ')}` : ''),
      );
    if (g.server_pids.length) out.push(`  server pids holding a GPU: ${g.server_pids.join(' ')}`);
  }
  if (k) {
    // Plural by hand: shared/format.ts is a root file, and shared/ imports shared/stalls/ (a folder loop).
    out.push(
      `kernel log at the stall: ${k.lines.length} GPU hang/reset line${k.lines.length === 1 ? '' : 's'} since the run started${k.error ? ` (${k.error})` : ''}`,
    );
    for (const l of k.lines) out.push(`  ${l}`);
  }
  return out;
}
