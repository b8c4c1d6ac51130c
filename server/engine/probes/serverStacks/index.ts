/**
 * The run probes a BenchConfig asks for: today the server-stacks probe
 * (`--server-pid` with `--capture-server-stacks` / `--server-stall-after-s`).
 * Refusals (auto off loopback, no listener, a bad rules file) throw before
 * anything is sent.
 */
import type { BenchConfig } from '../../config.ts';
import type { RunProbe } from '../../probe.ts';
import { checkServerStacks } from './config.ts';
import { ServerStacksProbe } from './probe.ts';

export function probesFor(config: BenchConfig): RunProbe[] {
  const c = config.serverStacks;
  if (!c || (!c.captureOnTimeout && c.stallAfterS === undefined)) return [];
  const { pid, source, rules } = checkServerStacks(c, config.baseUrl);
  return [new ServerStacksProbe({ config: c, pid, pidSource: source, rules })];
}
