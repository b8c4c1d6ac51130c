/**
 * The bug report's Markdown keeps what peers reported as text: a stack line
 * with backticks or `|`, a node name with Markdown in it, a build URL that is
 * not http(s).
 */
import { describe, expect, it } from 'vitest';
import { bugReportMarkdown, type BugReportFacts } from '#shared/runInfo/bugReport.ts';
import { mdCode, mdLink, mdText } from '#shared/runInfo/markdownText.ts';

const facts = (over: Partial<BugReportFacts> = {}): BugReportFacts => ({
  run: {
    id: 'r1',
    verdict: 'failed_closed',
    status: 'finished',
    metadata: { ci_build: '7', ci_build_url: 'javascript:alert(1)', ci_node: 'n`1`|<b>' },
  },
  story: 'Code2Wav op 1 stalled in hift',
  board: null,
  control: null,
  stack: {
    source: 'py-spy capture 1',
    phase: 'hift',
    frames: [{ function: 'run ```x``` | y', file: 'a|b.py', line: 3, column: 0 }],
  },
  liveness: 'The server answers health in 3 ms',
  dashboardUrl: 'http://127.0.0.1:7077',
  ...over,
});

describe('bugReportMarkdown', () => {
  it('fences a stack whose lines hold backticks and pipes in a longer fence, unchanged', () => {
    const md = bugReportMarkdown(facts());
    expect(md).toContain('````text\nrun ```x``` | y (a|b.py:3:0)\n````');
  });

  it('links only http(s) build URLs; a node name is code, whatever it holds', () => {
    const md = bugReportMarkdown(facts());
    expect(md).toContain('- Build: build 7\n');
    expect(md).not.toContain('javascript:');
    expect(md).toContain('- Node: ``n`1`|<b>``');
    expect(md).toContain('The server answers health in 3 ms');
  });

  it('writes what was below Python at the stall in a block of its own, and nothing when none was read', () => {
    const lines = ['gpu at the stall (rocm-smi, 40 ms): GPU 0 busy 100 % at the stall', '  amdgpu: ring `gfx` timeout'];
    const md = bugReportMarkdown(facts({ belowPython: lines }));
    expect(md).toContain(`## Below Python at the stall\n\n\`\`\`text\n${lines.join('\n')}\n\`\`\`\n`);
    expect(bugReportMarkdown(facts({ belowPython: [] }))).not.toContain('Below Python');
    expect(bugReportMarkdown(facts())).not.toContain('Below Python');
  });

  it('escapes inline text, code spans and link destinations', () => {
    expect(mdText('a|b `c` *d* <e>\nf')).toBe('a\\|b \\`c\\` \\*d\\* \\<e\\> f');
    expect(mdCode('`x`')).toBe('`` `x` ``');
    expect(mdLink('t]', 'http://h/a b>c')).toBe('[t\\]](<http://h/a%20b%3Ec>)');
  });
});
