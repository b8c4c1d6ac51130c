/**
 * The runs list's metadata filter as typed ("ci_build=14607 ci_node=mi325-agent-2"): the
 * `key=value` pairs the server matches, and the words that are not pairs. A
 * word that is not a pair cannot match anything, so the list says so rather
 * than dropping it and showing every run as if it had matched.
 */
import type { RunsQuery } from './router.ts';
import type { RunFilter } from './runFilter.ts';
import { humanVerdict } from './verdictWords.ts';

/** Runs a page of the list holds. */
export const PAGE = 25;

export interface MetaFilter {
  pairs: string[];
  /** Words that are not key=value ("mi300-7", "=x"). */
  bad: string[];
}

export function parseMetaFilter(text: string | undefined): MetaFilter {
  const pairs: string[] = [];
  const bad: string[] = [];
  for (const word of (text ?? '').split(/[\s,]+/).filter(Boolean)) {
    const i = word.indexOf('=');
    if (i > 0) pairs.push(word);
    else bad.push(word);
  }
  return { pairs, bad };
}

/** The offset of the list's last page: the oldest runs. */
export function lastPageOffset(total: number): number {
  return total <= 0 ? 0 : Math.floor((total - 1) / PAGE) * PAGE;
}

/** The offset of the page typed (1 = newest), clamped to the pages there are; null for what is not a page number. */
export function pageOffset(typed: string, total: number): number | null {
  if (!/^\s*\d+\s*$/.test(typed)) return null;
  return Math.min(Math.max(0, (Number(typed) - 1) * PAGE), lastPageOffset(total));
}

/** What the list asks the server for, for the URL's filters: one rule for the page and for the entry's early read. */
export function listFilter(query: RunsQuery, meta: MetaFilter = parseMetaFilter(query.meta)): RunFilter {
  return { verdict: query.verdict, q: query.q, metadata: meta.pairs, offset: query.offset ?? 0, limit: PAGE };
}

/** Why the list is empty, naming the filters that matched nothing. */
export function noMatchText(f: { verdict?: string; q?: string; meta: MetaFilter }): string {
  if (f.meta.bad.length)
    return `No run matches metadata ${f.meta.bad.map((w) => `“${w}”`).join(', ')}: write key=value, e.g. ci_node=mi325-agent-2.`;
  const parts = [
    ...(f.meta.pairs.length ? [`metadata ${f.meta.pairs.join(' ')}`] : []),
    ...(f.q ? [`“${f.q}”`] : []),
    ...(f.verdict ? [`verdict ${humanVerdict(f.verdict)}`] : []),
  ];
  // CI runs carry their metadata under ci_* keys (shared/runInfo/ciMetadata.ts): a bare `node=` or `build=` is the
  // usual miss, so the hint names the real keys.
  const hint = f.meta.pairs.some((p) => !p.startsWith('ci_'))
    ? ' CI runs are filtered by ci_build, ci_node, ci_commit, ci_pipeline, ci_step (e.g. ci_node=mi325-agent-2).'
    : '';
  return `No run matches ${parts.join(', ')}.${hint}`;
}
