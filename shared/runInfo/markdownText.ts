/**
 * Markdown for text that comes from outside (a stack frame, a step's label, a
 * node name): what a peer reported must read as the text it is, never as
 * Markdown, a table cell's end or an HTML tag. Pure.
 */

/** Inline text: Markdown's punctuation escaped, line breaks as spaces (a line break would end a list item). */
export function mdText(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/[\\`*_[\]<>|#~!]/g, (c) => `\\${c}`);
}

/** The longest run of backticks in `s`. */
function longestTicks(s: string): number {
  let best = 0;
  let run = 0;
  for (const c of s) {
    run = c === '`' ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

/** A code span that holds `s` whatever backticks it has (CommonMark: a fence longer than any run inside). */
export function mdCode(s: string): string {
  const one = s.replace(/[\r\n]+/g, ' ');
  const fence = '`'.repeat(longestTicks(one) + 1);
  const pad = one.startsWith('`') || one.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${one}${pad}${fence}`;
}

/** A fenced code block of `lines`, its fence longer than any backtick run inside. */
export function mdBlock(lines: readonly string[], info = 'text'): string {
  const fence = '`'.repeat(Math.max(3, ...lines.map((l) => longestTicks(l) + 1)));
  return [`${fence}${info}`, ...lines, fence].join('\n');
}

/** A link; the URL in angle brackets with what would end them percent-encoded, the text escaped. */
export function mdLink(text: string, url: string): string {
  const dest = url.replace(/[<>\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${mdText(text)}](<${dest}>)`;
}
