/**
 * One run of an outside tool (rocm-smi, nvidia-smi, dmesg) that may never
 * answer: vLLM-Omni replaced amd-smi after it hung in uninterruptible sleep
 * and blocked pytest (vllm-project/vllm-omni#6704). The tool is started in a
 * process group of its own; at the deadline the whole group gets SIGKILL and
 * the answer is given at once — never waiting for 'close', which a process
 * in uninterruptible sleep, or a child that left the group holding stdout,
 * would hold back for ever. The pipes are destroyed and the child unref'd,
 * so nothing keeps the run from ending. Output beyond `maxBytes` is refused
 * the same way, with a reason. `onLine` lets a caller filter a long output
 * line by line without keeping it (dmesg).
 */
import { spawn } from 'node:child_process';

export type Bounded =
  | { ok: true; code: number | null; stdout: string; stderr: string; tookMs: number }
  | { ok: false; reason: string; missing: boolean; stderr: string; tookMs: number };

export interface BoundedOptions {
  deadlineMs: number;
  /** stdout bytes kept; past it the tool is killed and its output refused. */
  maxBytes: number;
  /** Each stdout line as it comes; then stdout is not kept (only counted against maxBytes). */
  onLine?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** After the tool exits, how long its pipes may stay open (a grandchild holding them) before they are cut. */
const CLOSE_GRACE_MS = 200;
const MAX_STDERR = 16 * 1024;

export function runBounded(cmd: string, args: readonly string[], o: BoundedOptions): Promise<Bounded> {
  const t0 = performance.now();
  const took = () => Math.round(performance.now() - t0);
  return new Promise((resolve) => {
    let done = false;
    let out = '';
    let bytes = 0;
    let partial = '';
    let err = '';
    let exitCode: number | null = null;
    let exited = false;
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: o.env });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* the group is gone already */
      }
    };
    const finish = (r: Bounded) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(grace);
      // Cut loose: no wait on 'close' — the pipes and the child handle no longer keep the loop alive.
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.unref();
      resolve(r);
    };
    const fail = (reason: string, missing = false) =>
      finish({ ok: false, reason, missing, stderr: err, tookMs: took() });
    const deadline = setTimeout(() => {
      killGroup();
      fail(
        exited
          ? `its output stayed open ${(o.deadlineMs / 1000).toFixed(1)} s after it exited (a child holds it); abandoned`
          : `did not answer within ${(o.deadlineMs / 1000).toFixed(1)} s; killed (process group ${child.pid})`,
      );
    }, o.deadlineMs);
    let grace: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (done) return;
      bytes += Buffer.byteLength(d);
      if (bytes > o.maxBytes) {
        killGroup();
        fail(`printed more than ${(o.maxBytes / 1024 / 1024).toFixed(0)} MiB; output refused`);
        return;
      }
      if (!o.onLine) {
        out += d;
        return;
      }
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) o.onLine(l);
    });
    child.stderr.on('data', (d: string) => {
      if (err.length < MAX_STDERR) err += d.slice(0, MAX_STDERR - err.length);
    });
    child.on('error', (e: NodeJS.ErrnoException) =>
      fail(e.code === 'ENOENT' ? `'${cmd}' not found` : `cannot run '${cmd}': ${e.message}`, e.code === 'ENOENT'),
    );
    const answer = () => {
      if (o.onLine && partial) o.onLine(partial);
      partial = '';
      finish({ ok: true, code: exitCode, stdout: out, stderr: err, tookMs: took() });
    };
    child.on('exit', (code) => {
      exited = true;
      exitCode = code;
      // A grandchild that kept stdout open: take what came, cut it off shortly after.
      grace = setTimeout(() => {
        killGroup();
        answer();
      }, CLOSE_GRACE_MS);
    });
    child.on('close', () => {
      if (!done) answer();
    });
  });
}
