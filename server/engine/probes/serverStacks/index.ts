/**
 * The server-stacks probe a run asks for, built by whoever starts the run
 * (the CLI from its flags, the run manager from a RunSpec) and handed to the
 * engine in EngineOptions.probes. Its settings are checked here before
 * anything is sent: auto off loopback, no listener, no such process, a bad
 * rules file (each a StallscopeError naming its field); then whether a stack
 * can be taken at all (preflight.ts: py-spy runs, ptrace is allowed) — said
 * once when not, or refused with `--require-server-stacks`.
 */
import { StallscopeError } from '../../../../shared/errors.ts';
import type { RunProbe } from '../../run/probe.ts';
import { belowPythonOn, checkServerStacks, type ServerStacksConfig } from './config.ts';
import { preflightStacks } from './preflight.ts';
import { ServerStacksProbe } from './probe.ts';

/**
 * Checks the settings (when given) and returns the probe when a capture is
 * asked for (`captureOnTimeout` or `stallAfterS`); none for a pid alone.
 */
export async function serverStacksProbes(c: ServerStacksConfig | undefined, baseUrl: string): Promise<RunProbe[]> {
  if (!c) return [];
  const { pid, source, rules } = checkServerStacks(c, baseUrl);
  if (!c.captureOnTimeout && c.stallAfterS === undefined) return [];
  const preflight = await preflightStacks(c.pySpy ?? 'py-spy', pid);
  if (!preflight.ok && c.requireStacks)
    throw new StallscopeError(
      'CONFIG_STACKS_UNAVAILABLE',
      `--require-server-stacks: ${preflight.message}`,
      'evidence.serverStacks.requireStacks',
    );
  return [
    new ServerStacksProbe({
      config: c,
      pid,
      pidSource: source,
      rules,
      preflight,
      ...(belowPythonOn(c) ? { belowPython: { gpuSmi: c.gpuSmi } } : {}),
    }),
  ];
}
