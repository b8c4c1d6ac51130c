/**
 * A stand-in `buildkite-agent` first on PATH, taking `annotate` as the real CLI does (flags, the Markdown on
 * standard input): it records each call's arguments and input in a folder, one pair of files per call. Modes:
 * `ok`; `fail` (exits 1 with an error on stderr, as the agent does without its job token); `hang` (starts a
 * grandchild that sleeps, records its pid, and never exits), to check the deadline and the group kill.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface AgentStandIn {
  /** Put first on PATH. */
  bin: string;
  /** Each call, in order: its arguments (after `buildkite-agent`) and its standard input. */
  calls(): { args: string[]; stdin: string }[];
  /** The hanging mode's grandchild pid, once it started. */
  grandchildPid(): number | null;
}

export function buildkiteAgentStandIn(mode: 'ok' | 'fail' | 'hang'): AgentStandIn {
  const bin = mkdtempSync(join(tmpdir(), 'bk-agent-'));
  const log = join(bin, 'calls');
  writeFileSync(join(bin, '.keep'), '');
  const script = `#!/bin/sh
n=$(date +%s%N)
mkdir -p '${log}'
printf '%s\\n' "$@" > '${log}'/$n.args
cat > '${log}'/$n.stdin
${
  mode === 'fail'
    ? "echo 'fatal: Failed to annotate: POST https://agent.buildkite.com/v3/jobs/x/annotations: 401 Unauthorized' >&2; exit 1"
    : mode === 'hang'
      ? `sleep 30 & echo $! > '${bin}/grandchild.pid'; wait`
      : 'exit 0'
}
`;
  writeFileSync(join(bin, 'buildkite-agent'), script);
  chmodSync(join(bin, 'buildkite-agent'), 0o755);
  return {
    bin,
    calls: () =>
      existsSync(log)
        ? readdirSync(log)
            .filter((f) => f.endsWith('.args'))
            .sort()
            .map((f) => ({
              args: readFileSync(join(log, f), 'utf8').split('\n').slice(0, -1),
              stdin: readFileSync(join(log, f.replace(/\.args$/, '.stdin')), 'utf8'),
            }))
        : [],
    grandchildPid: () => {
      const p = join(bin, 'grandchild.pid');
      return existsSync(p) ? Number(readFileSync(p, 'utf8').trim()) : null;
    },
  };
}
