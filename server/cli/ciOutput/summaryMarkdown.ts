/**
 * `--ci-summary`: the run as Markdown for the job's page (a Buildkite annotation, a GitHub job summary): the
 * verdict, the stall card as the JUnit file has it (phase, fingerprint, top frames, liveness), the board's
 * sentence and the links. Text from peers (frames, errors, labels) is escaped, so it cannot open a link,
 * an HTML tag or a code block of its own; both hosts cap a summary at 1 MiB, so it is bounded here.
 */
import { ciBuildHref } from '../../../shared/runInfo/runTitle.ts';
import type { CiReport } from './ciReport.ts';

/** Buildkite's annotation and GitHub's step summary limit (1 MiB each). */
export const SUMMARY_MAX_BYTES = 1024 * 1024;

/** Frames of the stack shown in the card: the top of it is where the work is stuck. */
const TOP_FRAMES = 12;

/** Inline text: Markdown's punctuation and HTML escaped, line breaks flattened. */
export function mdText(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]{}()#+!|~])/g, '\\$1');
}

/** A fenced block that no backtick run in `body` can close early (the fence is longer than any run in it). */
function fenced(body: string): string {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${body}\n${fence}`;
}

/** A link only to an http(s) URL (the one rule, runTitle.ts); anything else is left out. */
function link(text: string, href: string | null): string | null {
  const safe = ciBuildHref(href);
  return safe ? `[${mdText(text)}](<${safe.replace(/[<>\s]/g, encodeURIComponent)}>)` : null;
}

const ICON: Record<CiReport['verdict'], string> = {
  passed: '✅',
  failed: '❌',
  failed_closed: '❌',
  interrupted: '⚠️',
  errored: '❌',
};

export function summaryMarkdown(r: CiReport): string {
  const out: string[] = [];
  const what = r.stall ? 'stalled' : r.verdict === 'passed' ? 'passed' : r.verdict.replace('_', ' ');
  out.push(`### ${ICON[r.verdict]} stallscope: ${what} — ${mdText(r.name)}`);
  const where = [
    r.title ? `**${mdText(r.title)}**` : null,
    `run \`${r.runId.replace(/`/g, "'")}\``,
    `verdict \`${r.verdict}\``,
    link('build', r.links.build),
    link('run on the dashboard', r.links.run),
    link('stall board', r.links.board),
  ].filter(Boolean);
  out.push('', where.join(' · '));
  for (const n of r.notes) out.push('', `> **Warning:** ${mdText(n)}`);
  if (r.failure && !r.stall) out.push('', mdText(r.failure.message));
  if (r.stall) {
    const s = r.stall;
    out.push(
      '',
      `**Stall** in phase \`${s.phase.replace(/`/g, "'")}\`, fingerprint \`${s.fingerprint}\` (${mdText(s.label)})`,
    );
    if (s.boardSentence) out.push('', `> ${mdText(s.boardSentence)}`);
    if (s.stack.length) {
      const top = s.stack.slice(0, TOP_FRAMES);
      const more = s.stack.length - top.length;
      out.push(
        '',
        'Top frames of the blocked thread:',
        '',
        fenced(top.join('\n') + (more > 0 ? `\n… ${more} more` : '')),
      );
    } else out.push('', 'No stack: a timeout seen from the client (the server sent no stack evidence).');
  }
  if (r.liveness) out.push('', `**Liveness:** ${mdText(r.liveness)}`);
  if (r.reasons.length) {
    out.push('', '<details><summary>Verdict</summary>', '');
    for (const reason of r.reasons) out.push(`- ${mdText(reason)}`);
    out.push('', '</details>');
  }
  return boundMarkdown(`${out.join('\n')}\n`);
}

/**
 * `md` cut to `max` UTF-8 bytes with a marker saying so; an open code fence is closed first, so the marker
 * is not swallowed into a code block. The cut falls on a line's end, whole characters kept.
 */
export function boundMarkdown(md: string, max = SUMMARY_MAX_BYTES): string {
  const bytes = Buffer.byteLength(md, 'utf8');
  if (bytes <= max) return md;
  const marker = `\n*… truncated by stallscope: the summary was ${bytes} bytes, over the ${max}-byte limit.*\n`;
  let budget = max - Buffer.byteLength(marker, 'utf8');
  for (;;) {
    let cut = Buffer.from(md, 'utf8').subarray(0, Math.max(0, budget)).toString('utf8');
    if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1); // a character split by the byte cut
    cut = cut.slice(0, cut.lastIndexOf('\n') + 1);
    const close = openFence(cut);
    const out = `${cut}${close ? `${close}\n` : ''}${marker}`;
    if (Buffer.byteLength(out, 'utf8') <= max) return out;
    budget -= close.length + 1;
  }
}

/** The fence of the code block `md` leaves open, or '' when none is. */
function openFence(md: string): string {
  let open = '';
  for (const line of md.split('\n')) {
    const m = /^(`{3,})/.exec(line);
    if (!m) continue;
    if (open === '') open = m[1];
    else if (m[1].length >= open.length && line.trim() === m[1]) open = '';
  }
  return open;
}
