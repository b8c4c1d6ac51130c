/**
 * Stand-in `rocm-smi`, `nvidia-smi`, `dmesg` and `py-spy` executables in a
 * temporary folder to put first on PATH: each prints a recorded output from
 * test/fixtures/gpuTools/ (header lines starting with `#` dropped, `@PID@`
 * and `@OTHER@` replaced), or misbehaves as a real one can — sleeps for
 * ever, leaves a child that ignores SIGTERM holding its stdout (in a session
 * of its own, out of reach of a group kill), prints 100 MB, or is refused
 * the kernel log.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './benchChild.ts';

export const GPU_FIXTURES = join(REPO, 'test/fixtures/gpuTools');

export type ToolBehaviour =
  | { fixture: string }
  /** nvidia-smi: the device list for --query-gpu, the processes for --query-compute-apps. */
  | { gpus: string; apps: string }
  | 'sleep'
  | 'holdOpen'
  | 'huge'
  | 'eperm'
  | 'dmesgFixture'
  /** busybox's dmesg: no --time-format; `[seconds]` stamps. */
  | 'busybox'
  | 'fail';

export interface StandIns {
  bin: string;
  /** Pids of `holdOpen` children (written by them), to kill after the test. */
  holders(): number[];
  cleanup(): void;
}

/** A recorded fixture's body: its `#` header dropped. */
export function fixtureBody(name: string): string {
  return readFileSync(join(GPU_FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

function script(dir: string, b: ToolBehaviour, subst: string): string {
  if (b === 'sleep') return 'exec sleep 1000';
  if (b === 'fail') return 'echo "stand-in failure" >&2; exit 1';
  if (b === 'holdOpen')
    return `setsid sh -c 'trap "" TERM; echo $$ >> ${dir}/holders; exec sleep 1000' &\nexec sleep 1000`;
  if (b === 'huge') return 'yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 104857600';
  if (b === 'eperm') return `echo 'dmesg: read kernel buffer failed: Operation not permitted' >&2; exit 1`;
  if (b === 'busybox')
    return `case "$1" in --time-format) echo "dmesg: unrecognized option '--time-format'" >&2; exit 1 ;; esac
grep -v '^#' ${join(GPU_FIXTURES, 'dmesg-gpu-hang.txt')} | sed -e 's/^OLD //' -e 's/^/[  312.522692] /'`;
  if (b === 'dmesgFixture')
    return `grep -v '^#' ${join(GPU_FIXTURES, 'dmesg-gpu-hang.txt')} | while IFS= read -r line; do
  case "$line" in
    OLD\\ *) echo "2020-01-01T00:00:00,000000+00:00 \${line#OLD }" ;;
    *) echo "$(date -u +%Y-%m-%dT%H:%M:%S,%6N+00:00) $line" ;;
  esac
done`;
  const cat = (f: string) => `grep -v '^#' ${join(GPU_FIXTURES, f)} | sed ${subst}`;
  if ('gpus' in b) return `case "$1" in --query-compute-apps*) ${cat(b.apps)} ;; *) ${cat(b.gpus)} ;; esac`;
  return cat(b.fixture);
}

export function standIns(
  tools: Partial<Record<'rocm-smi' | 'nvidia-smi' | 'dmesg' | 'py-spy', ToolBehaviour>>,
  ids: { pid?: number; other?: number } = {},
): StandIns {
  const bin = mkdtempSync(join(tmpdir(), 'stallscope-gputools-'));
  const subst = `-e 's/@PID@/${ids.pid ?? 0}/g' -e 's/@OTHER@/${ids.other ?? 1}/g'`;
  for (const [name, b] of Object.entries(tools)) {
    const f = join(bin, name);
    writeFileSync(f, `#!/bin/sh\n${script(bin, b, subst)}\n`);
    chmodSync(f, 0o755);
  }
  return {
    bin,
    holders() {
      try {
        return readFileSync(join(bin, 'holders'), 'utf8').trim().split('\n').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    },
    cleanup() {
      for (const p of this.holders())
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      rmSync(bin, { recursive: true, force: true });
    },
  };
}
