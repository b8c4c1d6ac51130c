/**
 * Server stack capture settings (docs/design.md#server-stacks), as the CLI
 * flags and the RunSpec give them, and their refusals: `auto` only for a
 * loopback base URL and only when a process of ours listens on its port; a
 * rules file that is valid JSON of the rules schema.
 */
import { existsSync } from 'node:fs';
import { StallscopeError } from '../../../../shared/errors.ts';
import { isLoopbackUrl } from '../../../../shared/stalls/stallReport.ts';
import type { CompiledRules } from '../../../../shared/stalls/phaseRules.ts';
import { findListenerPid } from './procfs.ts';
import { loadPhaseRules } from './rules.ts';

export interface ServerStacksConfig {
  /** `--server-pid PID|auto`. */
  pid: number | 'auto';
  /** `--capture-server-stacks`: capture at the first structural timeout. */
  captureOnTimeout: boolean;
  /** `--server-stall-after-s S`: capture when an in-flight request got no SSE event for S s. */
  stallAfterS?: number;
  /** `--server-stacks-native`: py-spy --native. */
  native: boolean;
  /** `--py-spy PATH`; default `py-spy` from PATH. */
  pySpy?: string;
  /** `--server-phase-rules FILE`; default the MiniCPM-o 4.5 Code2Wav rules. */
  rulesFile?: string;
  /** `--gpu-state-at-stall` / `--no-gpu-state-at-stall`; unset: on whenever `captureOnTimeout` is. */
  gpuStateAtStall?: boolean;
  /** `--gpu-smi PATH`; default rocm-smi, else nvidia-smi, from PATH. */
  gpuSmi?: string;
  /** `--require-server-stacks`: refuse to start when no stack could be taken. */
  requireStacks?: boolean;
}

/** Whether the GPU state and the kernel log are taken at the first stall (docs/design.md#below-python). */
export function belowPythonOn(c: ServerStacksConfig): boolean {
  return c.gpuStateAtStall ?? c.captureOnTimeout;
}

const FIELD = 'evidence.serverStacks.pid';

/** The pid to capture from, `auto` resolved from the base URL's port. Throws CONFIG_SERVER_PID. */
export function resolveServerPid(c: ServerStacksConfig, baseUrl: string): { pid: number; source: 'flag' | 'auto' } {
  if (c.pid !== 'auto') return { pid: c.pid, source: 'flag' };
  if (!isLoopbackUrl(baseUrl))
    throw new StallscopeError(
      'CONFIG_SERVER_PID',
      `--server-pid auto needs a loopback base URL (127.0.0.1, ::1, localhost), not '${baseUrl}': the server's process can only be found on this machine; give its pid instead`,
      FIELD,
    );
  const u = new URL(baseUrl);
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return { pid: findListenerPid(port), source: 'auto' };
}

/** Refuses a bad setting before anything is sent; returns what the capture needs. */
export function checkServerStacks(
  c: ServerStacksConfig,
  baseUrl: string,
): { pid: number; source: 'flag' | 'auto'; rules: CompiledRules } {
  if (c.pid !== 'auto' && !(Number.isInteger(c.pid) && c.pid > 0))
    throw new StallscopeError('CONFIG_SERVER_PID', `--server-pid must be a process id or auto (got ${c.pid})`, FIELD);
  if (c.pid !== 'auto' && !existsSync(`/proc/${c.pid}`))
    throw new StallscopeError(
      'CONFIG_SERVER_PID',
      `--server-pid ${c.pid}: no such process on this machine (or in this pid namespace)`,
      FIELD,
    );
  if (c.stallAfterS !== undefined && !(c.stallAfterS > 0))
    throw new StallscopeError(
      'CONFIG_INVALID',
      `--server-stall-after-s must be > 0 seconds (got ${c.stallAfterS})`,
      'evidence.serverStacks.stallAfterS',
    );
  const rules = loadPhaseRules(c.rulesFile);
  return { ...resolveServerPid(c, baseUrl), rules };
}
