/**
 * The server-stacks probe a run asks for, built by whoever starts the run
 * (the CLI from its flags, the run manager from a RunSpec) and handed to the
 * engine in EngineOptions.probes. Its settings are checked here before
 * anything is sent: auto off loopback, no listener, no such process, a bad
 * rules file (each a StallscopeError naming its field).
 */
import type { RunProbe } from '../../run/probe.ts';
import { checkServerStacks, type ServerStacksConfig } from './config.ts';
import { ServerStacksProbe } from './probe.ts';

/**
 * Checks the settings (when given) and returns the probe when a capture is
 * asked for (`captureOnTimeout` or `stallAfterS`); none for a pid alone.
 */
export function serverStacksProbes(c: ServerStacksConfig | undefined, baseUrl: string): RunProbe[] {
  if (!c) return [];
  const { pid, source, rules } = checkServerStacks(c, baseUrl);
  if (!c.captureOnTimeout && c.stallAfterS === undefined) return [];
  return [new ServerStacksProbe({ config: c, pid, pidSource: source, rules })];
}
