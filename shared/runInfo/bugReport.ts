/**
 * One bug report for a run (`GET /api/runs/:id/report.md`, the run page's
 * "Copy bug report"): Markdown a maintainer pastes into an issue — what
 * happened (the story sentence), the pattern (the board's sentence, rate,
 * onset), where it ran (linked build, node, commit, step), the nearest
 * passing control with its links, the stack, the liveness result, the GPU
 * state and kernel log at the stall (when they were read) and the
 * dashboard's URLs. Pure: the dashboard gathers the facts, this writes them,
 * escaping everything a peer reported (shared/runInfo/markdownText.ts).
 */
import { ciBuildHref, runTitle } from './runTitle.ts';
import { mdBlock, mdCode, mdLink, mdText } from './markdownText.ts';

type Metadata = Readonly<Record<string, string>>;

export interface ReportStack {
  /** Where it was read: "watchdog, worker 0, op 5", "py-spy capture 1". */
  source: string;
  phase: string;
  frames: readonly { function: string; file: string; line: number; column: number }[];
}

export interface BugReportFacts {
  run: { id: string; verdict: string | null; status: string; metadata: Metadata };
  /** The run page's story sentence. */
  story: string;
  /** The run's stall on the board, or null when it has no stall evidence. */
  board: {
    scope: 'job' | 'local';
    fingerprint: string;
    label: string;
    sentence: string;
    occurrences: number;
    scopeRuns: number;
    hangRate: number;
    low: number;
    high: number;
    onset: { lastPassing: { build: string | null; commit: string | null; runId: string } | null };
  } | null;
  /** The nearest passing run of the same job, or null. */
  control: { id: string; metadata: Metadata } | null;
  stack: ReportStack | null;
  /** The liveness sentence (shared/stalls/liveness.ts `livenessText`), or null when none was taken. */
  liveness: string | null;
  /**
   * What was below Python at the stall — the GPU tool's devices and the kernel's GPU hang/reset lines, as the
   * stall card's Copy writes them (shared/stalls/gpuState.ts `belowPythonLines`) — or empty when none was read.
   */
  belowPython?: readonly string[];
  /** The dashboard's own URL (`http://host:port`), without a trailing slash. */
  dashboardUrl: string;
}

const pct = (r: number) => `${Math.round(r * 100)} %`;

/** The dashboard's pages, as the web UI's router writes them. */
export const dashboardLinks = {
  run: (base: string, id: string) => `${base}/#/runs/${encodeURIComponent(id)}`,
  compare: (base: string, ids: readonly string[]) => `${base}/#/compare?ids=${ids.map(encodeURIComponent).join(',')}`,
  board: (base: string, fingerprint: string, m: Metadata) => {
    const job = ['ci_pipeline', 'ci_step'].filter((k) => m[k]).map((k) => `${k}=${m[k]}`);
    const meta = job.length ? `&meta=${encodeURIComponent(job.join(' '))}` : '';
    return `${base}/#/stalls?fp=${encodeURIComponent(fingerprint)}${meta}`;
  },
  evidence: (base: string, id: string) => `${base}/api/runs/${encodeURIComponent(id)}/export?format=evidence`,
};

/** "build 14607" linked to its CI page (http/https only), or as text. */
function buildText(m: Metadata): string | null {
  if (!m.ci_build) return null;
  const href = ciBuildHref(m.ci_build_url);
  return href ? mdLink(`build ${m.ci_build}`, href) : `build ${mdText(m.ci_build)}`;
}

/** The lines saying where a run ran. */
function whereLines(m: Metadata): string[] {
  const job = [m.ci_pipeline, m.ci_step].filter(Boolean).join(' / ');
  return [
    buildText(m) && `- Build: ${buildText(m)}`,
    m.ci_node && `- Node: ${mdCode(m.ci_node)}`,
    m.ci_commit && `- Commit: ${mdCode(m.ci_commit)}`,
    job && `- Job: ${mdText(job)}`,
    m.ci_provider && `- CI: ${mdText(m.ci_provider)}`,
  ].filter((l): l is string => Boolean(l));
}

const frameLine = (f: ReportStack['frames'][number]) =>
  `${f.function || '(anonymous)'} (${f.file}:${f.line}:${f.column})`;

/** The bug report's Markdown. */
export function bugReportMarkdown(f: BugReportFacts): string {
  const { run, dashboardUrl: base } = f;
  const title = runTitle(run.metadata);
  const runUrl = dashboardLinks.run(base, run.id);
  const out: string[] = [
    `# ${title ? `${mdText(title)} (${mdCode(run.id)})` : `Run ${mdCode(run.id)}`}: ${mdText(run.verdict ?? run.status)}`,
    '',
    mdText(f.story || 'No story: the run has no events.'),
    '',
  ];
  if (f.board) {
    const b = f.board;
    out.push(
      `**On the board:** ${mdText(b.sentence)}.`,
      '',
      `- Fingerprint: ${mdCode(b.fingerprint)} (${mdText(b.label)}), ${b.occurrences} of ${b.scopeRuns} runs of ` +
        `${b.scope === 'job' ? 'its job' : 'the runs without CI metadata'} ` +
        `(${pct(b.hangRate)}, 95 % interval ${pct(b.low)}–${pct(b.high)})`,
    );
    const lp = b.onset.lastPassing;
    if (lp)
      out.push(
        `- Onset: last passing before the first stall: ${lp.build ? `build ${mdText(lp.build)}` : mdCode(lp.runId)}` +
          (lp.commit ? `, commit ${mdCode(lp.commit)}` : ''),
      );
    out.push('');
  }
  out.push('## Where it ran', '', ...whereLines(run.metadata), `- Run: ${mdLink(run.id, runUrl)}`, '');
  out.push('## Nearest passing control', '');
  if (f.control) {
    const c = f.control;
    const where = [buildText(c.metadata), c.metadata.ci_node && `on ${mdCode(c.metadata.ci_node)}`]
      .filter(Boolean)
      .join(' ');
    out.push(
      `- ${where || mdCode(c.id)}${c.metadata.ci_commit ? `, commit ${mdCode(c.metadata.ci_commit)}` : ''}: ` +
        `${mdLink('run', dashboardLinks.run(base, c.id))}, ${mdLink('compare with this run', dashboardLinks.compare(base, [run.id, c.id]))}`,
      '',
    );
  } else out.push('None: no run of this job passed without a stall.', '');
  if (f.stack) {
    out.push(`## Stack (${mdText(f.stack.source)}, phase ${mdText(f.stack.phase)})`, '');
    out.push(f.stack.frames.length ? mdBlock(f.stack.frames.map(frameLine)) : 'No stack was read.', '');
  }
  out.push('## Liveness at the stall', '', f.liveness ? mdText(f.liveness) : 'Not probed.', '');
  if (f.belowPython?.length) out.push('## Below Python at the stall', '', mdBlock(f.belowPython), '');
  out.push('## Links', '', `- ${mdLink('Run page', runUrl)}`);
  if (f.board)
    out.push(`- ${mdLink('Where else it occurred', dashboardLinks.board(base, f.board.fingerprint, run.metadata))}`);
  out.push(`- ${mdLink('Evidence file (JSON)', dashboardLinks.evidence(base, run.id))}`, '');
  return out.join('\n');
}
