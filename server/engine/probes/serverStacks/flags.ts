/**
 * The server-stacks probe's command-line flags (docs/design.md#server-stacks):
 * `--server-pid PID|auto` with `--capture-server-stacks` and/or
 * `--server-stall-after-s S`. Either capture needs the pid; the pid alone
 * captures nothing (but is still checked). Syntax is refused here, naming
 * the flag; what needs the machine (the process, the rules file, `auto`) is
 * refused by checkServerStacks (config.ts).
 */
import { integer, optNumber, usage } from '../../../common/flagValues.ts';
import type { ServerStacksConfig } from './config.ts';

/** The flags as given on the command line. */
interface ServerStacksFlags {
  /** `--server-pid`. */
  pid?: string;
  /** `--capture-server-stacks`. */
  captureOnTimeout: boolean;
  /** `--server-stall-after-s`. */
  stallAfterS?: string;
  /** `--server-stacks-native`. */
  native: boolean;
  /** `--py-spy`. */
  pySpy?: string;
  /** `--server-phase-rules`. */
  rulesFile?: string;
  /** `--probe-liveness-at-stall`: `--server-stall-after-s` then also starts the liveness check, and needs no pid. */
  liveness?: boolean;
  /** `--gpu-state-at-stall` (true) / `--no-gpu-state-at-stall` (false); unset: the default. */
  gpuState?: boolean;
  /** Both of them were given. */
  gpuStateBoth?: boolean;
  /** `--gpu-smi`. */
  gpuSmi?: string;
  /** `--require-server-stacks`. */
  requireStacks?: boolean;
}

/** The probe's settings from its flags; undefined without `--server-pid`. */
export function serverStacksFromFlags(f: ServerStacksFlags): ServerStacksConfig | undefined {
  if (f.gpuStateBoth)
    usage('--gpu-state-at-stall and --no-gpu-state-at-stall contradict each other', '--gpu-state-at-stall');
  if (f.gpuSmi !== undefined && f.gpuState === false)
    usage('--gpu-smi is not used with --no-gpu-state-at-stall', '--gpu-smi');
  if (f.gpuSmi === '') usage('--gpu-smi needs a path', '--gpu-smi');
  if (f.pid === undefined) {
    if (f.gpuState || f.gpuSmi !== undefined)
      usage('--gpu-state-at-stall and --gpu-smi need --server-pid PID|auto with a capture', '--server-pid');
    if (f.requireStacks) usage('--require-server-stacks needs --server-pid PID|auto', '--server-pid');
    if (f.captureOnTimeout) usage('--capture-server-stacks needs --server-pid PID|auto', '--server-pid');
    if (f.stallAfterS !== undefined && !f.liveness)
      usage('--server-stall-after-s needs --server-pid PID|auto (or --probe-liveness-at-stall)', '--server-pid');
    return undefined;
  }
  let pid: number | 'auto' = 'auto';
  if (f.pid !== 'auto') {
    pid = integer(f.pid, '--server-pid');
    if (pid < 1) usage(`--server-pid '${f.pid}' is not a process id or auto`, '--server-pid');
  }
  const stallAfterS = optNumber(f.stallAfterS, '--server-stall-after-s');
  if (!f.captureOnTimeout && stallAfterS === undefined) {
    if (f.requireStacks)
      usage(
        '--require-server-stacks needs --capture-server-stacks or --server-stall-after-s',
        '--require-server-stacks',
      );
    if (f.gpuState || f.gpuSmi !== undefined)
      usage(
        '--gpu-state-at-stall and --gpu-smi need --capture-server-stacks or --server-stall-after-s',
        '--gpu-state-at-stall',
      );
  }
  return {
    pid,
    captureOnTimeout: f.captureOnTimeout,
    stallAfterS,
    native: f.native,
    pySpy: f.pySpy,
    rulesFile: f.rulesFile,
    ...(f.gpuState !== undefined ? { gpuStateAtStall: f.gpuState } : {}),
    ...(f.gpuSmi !== undefined ? { gpuSmi: f.gpuSmi } : {}),
    ...(f.requireStacks ? { requireStacks: true } : {}),
  };
}
