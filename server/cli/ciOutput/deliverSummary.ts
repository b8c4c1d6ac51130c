/**
 * Where `--ci-summary` puts the Markdown: on Buildkite (`BUILDKITE=true`) `buildkite-agent annotate` with it
 * on standard input, in place under one context per step; on GitHub Actions appended to `$GITHUB_STEP_SUMMARY`.
 * The summary is a courtesy to the reader of the job page: whatever goes wrong here (no agent, an agent that
 * fails or hangs, an unwritable file) is one warning line, never a change to the run's result or exit code.
 */
import { spawn } from 'node:child_process';
import { appendFile } from 'node:fs/promises';

/** How long `buildkite-agent annotate` may take before its process group is killed. */
export const ANNOTATE_DEADLINE_MS = 15_000;

export type AnnotationStyle = 'success' | 'info' | 'warning' | 'error';

type Env = Readonly<Record<string, string | undefined>>;

/** `stallscope-<step>`: one annotation per step, updated in place by a retry; Buildkite's context characters. */
export function annotationContext(step: string | undefined): string {
  const s = (step ?? '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return `stallscope-${s || 'bench'}`;
}

/** Runs `buildkite-agent annotate`; resolves with null when it succeeded, else the one warning to print. */
export function annotate(
  markdown: string,
  style: AnnotationStyle,
  context: string,
  o: { env?: Env; deadlineMs?: number } = {},
): Promise<string | null> {
  const deadlineMs = o.deadlineMs ?? ANNOTATE_DEADLINE_MS;
  return new Promise((resolve) => {
    const args = ['annotate', '--style', style, '--context', context];
    // Its own process group, so a deadline kills whatever the agent started too.
    const child = spawn('buildkite-agent', args, {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
      env: { ...process.env, ...o.env },
    });
    let stderr = '';
    let settled = false;
    const done = (warning: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(warning);
    };
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      // Its pipes too: a grandchild outside the group must not hold this process open.
      child.stdin.destroy();
      child.stderr.destroy();
      done(`buildkite-agent annotate did not finish within ${deadlineMs / 1000} s: killed, no annotation`);
    }, deadlineMs);
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 2000) stderr += b.toString('utf8');
    });
    child.once('error', (e: NodeJS.ErrnoException) =>
      done(
        e.code === 'ENOENT'
          ? 'buildkite-agent is not on PATH: no annotation'
          : `buildkite-agent could not be started (${e.message}): no annotation`,
      ),
    );
    child.once('close', (code, signal) => {
      if (code === 0) done(null);
      else
        done(
          `buildkite-agent annotate exited with ${code ?? signal}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-1)[0]}` : ''}: no annotation`,
        );
    });
    // An agent that exits without reading its input closes the pipe: that is its exit's story, not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(markdown);
  });
}

/** Appends to GitHub's step summary file; null when written, else the warning. */
export async function appendStepSummary(path: string, markdown: string): Promise<string | null> {
  try {
    await appendFile(path, `${markdown}\n`);
    return null;
  } catch (e) {
    return `GITHUB_STEP_SUMMARY ${path} could not be written (${(e as Error).message}): no job summary`;
  }
}

/** Delivers the summary where the CI shows it; the warnings to print (none when all went well). */
export async function deliverSummary(
  markdown: string,
  style: AnnotationStyle,
  step: string | undefined,
  env: Env,
): Promise<string[]> {
  const warnings: string[] = [];
  let where = 0;
  if (env.BUILDKITE === 'true') {
    where++;
    const w = await annotate(markdown, style, annotationContext(step));
    if (w) warnings.push(w);
  }
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_STEP_SUMMARY) {
    where++;
    const w = await appendStepSummary(env.GITHUB_STEP_SUMMARY, markdown);
    if (w) warnings.push(w);
  }
  if (where === 0)
    warnings.push(
      '--ci-summary: not on Buildkite (BUILDKITE=true) or GitHub Actions ($GITHUB_STEP_SUMMARY): no summary written',
    );
  return warnings;
}
