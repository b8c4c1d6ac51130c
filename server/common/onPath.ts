/**
 * Where a command would be found: a path given as is, or a name looked up in
 * the PATH's folders — an executable file, as the shell would run it. The
 * probes ask before running an outside tool, so a missing one is said in
 * words ("not on PATH") instead of a spawn error at the stall.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findOnPath(cmd: string, path: string = process.env.PATH ?? ''): string | null {
  const candidates = cmd.includes('/')
    ? [cmd]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, cmd));
  for (const f of candidates) {
    try {
      accessSync(f, constants.X_OK);
      if (statSync(f).isFile()) return f;
    } catch {
      /* not this one */
    }
  }
  return null;
}
