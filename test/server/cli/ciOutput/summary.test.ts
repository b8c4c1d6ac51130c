/**
 * The job summary: bounded to the hosts' 1 MiB with a marker (a code fence left open is closed first), and
 * delivered as the real CLIs take it — `buildkite-agent annotate` (a stand-in first on PATH records its
 * arguments and input) and GitHub's step summary file — where a missing, failing or hanging agent and an
 * unwritable file are one warning each, the hanging agent's whole process group killed at its deadline.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CiReport } from '#server/cli/ciOutput/ciReport.ts';
import { annotate, annotationContext, appendStepSummary } from '#server/cli/ciOutput/deliverSummary.ts';
import { boundMarkdown, summaryMarkdown, SUMMARY_MAX_BYTES } from '#server/cli/ciOutput/summaryMarkdown.ts';
import { buildkiteAgentStandIn } from '#test/helpers/buildkiteAgent.ts';
import { waitFor } from '#test/helpers/waitFor.ts';

const PATH0 = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH0;
});

function report(stack: string[]): CiReport {
  return {
    runId: 'r1',
    classname: 'p.s',
    name: 'openai-chat-omni · random',
    title: 'build 7 · node-a · s',
    verdict: 'failed_closed',
    durationS: 1,
    failure: { type: 'stall', message: 'stalled' },
    reasons: ['1 request timed out'],
    stall: { source: 'bench', fingerprint: 'abcdefabcdef', phase: 'hift', label: 'hift/f', stack, boardSentence: null },
    liveness: null,
    metadata: {},
    links: { build: 'javascript:alert(1)', run: null, board: null },
    notes: [],
  };
}

describe('summaryMarkdown and its 1 MiB bound', () => {
  it('a summary over 1 MiB is cut to it, its open code block closed, and says so', () => {
    const md = '# t\n\n````text\n' + 'frame (file.py:1)\n'.repeat(80_000) + '````\n\nafter\n';
    expect(Buffer.byteLength(md)).toBeGreaterThan(SUMMARY_MAX_BYTES);
    const cut = boundMarkdown(md);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(cut).toMatch(
      /\n````\n\n\*… truncated by stallscope: the summary was \d+ bytes, over the 1048576-byte limit\.\*\n$/,
    );
    expect(cut.startsWith('# t\n\n````text\nframe (file.py:1)\n')).toBe(true);
    // Multi-byte characters are never split.
    const wide = boundMarkdown('é'.repeat(SUMMARY_MAX_BYTES), 1000);
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(1000);
    expect(wide).not.toContain('\uFFFD');
    expect(boundMarkdown('small\n')).toBe('small\n');
  });

  it("a stack's hostile text cannot close the code block, and a javascript: build URL is no link", () => {
    const md = summaryMarkdown(report(['f ``` ```` x (a.py:1)', '<img src=x onerror=alert(1)> (b.py:2)']));
    expect(md).toContain('`````text\nf ``` ```` x (a.py:1)\n<img src=x onerror=alert(1)> (b.py:2)\n`````');
    expect(md).not.toContain('javascript:');
    expect(md).toContain('fingerprint `abcdefabcdef`');
  });
});

describe('delivering the summary', () => {
  it('buildkite-agent annotate gets --style, --context and the Markdown on standard input', async () => {
    const agent = buildkiteAgentStandIn('ok');
    process.env.PATH = `${agent.bin}:${PATH0}`;
    expect(await annotate('## hello\n', 'error', annotationContext(':rocm: MiniCPM-o accuracy'))).toBeNull();
    expect(agent.calls()).toEqual([
      {
        args: ['annotate', '--style', 'error', '--context', 'stallscope-rocm-MiniCPM-o-accuracy'],
        stdin: '## hello\n',
      },
    ]);
  });

  it('a missing agent, a failing one and a hanging one are one warning each; the hanging group is killed', async () => {
    process.env.PATH = mkdtempSync(join(tmpdir(), 'empty-path-'));
    expect(await annotate('x', 'success', 'stallscope-s')).toBe('buildkite-agent is not on PATH: no annotation');

    const failing = buildkiteAgentStandIn('fail');
    process.env.PATH = `${failing.bin}:${PATH0}`;
    expect(await annotate('x', 'success', 'stallscope-s')).toMatch(
      /^buildkite-agent annotate exited with 1: fatal: Failed to annotate: .*401 Unauthorized: no annotation$/,
    );

    const hanging = buildkiteAgentStandIn('hang');
    process.env.PATH = `${hanging.bin}:${PATH0}`;
    const t0 = performance.now();
    expect(await annotate('x', 'success', 'stallscope-s', { deadlineMs: 500 })).toBe(
      'buildkite-agent annotate did not finish within 0.5 s: killed, no annotation',
    );
    expect(performance.now() - t0).toBeLessThan(3000);
    const pid = hanging.grandchildPid();
    expect(pid).not.toBeNull();
    await waitFor(() => {
      try {
        process.kill(pid!, 0);
        return false;
      } catch {
        return true; // gone: the group kill reached the agent's own child
      }
    }, 3000);
  });

  it("GitHub's step summary is appended to; an unwritable one is a warning", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-summary-'));
    const file = join(dir, 'step_summary.md');
    writeFileSync(file, 'earlier step\n');
    expect(await appendStepSummary(file, '## ours')).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe('earlier step\n## ours\n');
    expect(await appendStepSummary(join(dir, 'no', 'such', 'dir.md'), 'x')).toMatch(
      /^GITHUB_STEP_SUMMARY .*dir\.md could not be written \(ENOENT.*\): no job summary$/,
    );
  });
});
