/**
 * The notice after an import, said once: a JSON-lines file of 16 runs that all
 * lack the same parts gets one "without …", not sixteen. A file without a
 * verdict still gets one, derived from its counts (the list shows it as a
 * badge), so the notice says "verdict derived from the counts", never
 * "without a verdict".
 */
import { plural } from '../../shared/format.ts';

export interface ImportedRunNote {
  id: string;
  label: string | null;
  /** Parts of a result the file did not have (the importer's names). */
  missing: readonly string[];
}

/** The importer's part names in words. */
const PART_WORDS: Record<string, string> = {
  summary: 'summary counts',
  percentiles: 'percentiles',
  audio: 'audio metrics',
  detailed: 'per-request data',
  failFast: 'fail-fast counts',
  statuses: 'per-request statuses',
};

/** What the importer calls a file without its own verdict: the dashboard derives one from the counts. */
const DERIVED = 'verdict';
const lacking = (r: ImportedRunNote) => r.missing.filter((m) => m !== DERIVED);

const words = (missing: readonly string[]) => missing.map((m) => PART_WORDS[m] ?? m).join(', ');
const nameOf = (r: ImportedRunNote) => r.label ?? r.id;
/** At most a few names: a long file is summed up by its first and last run. */
function names(runs: readonly ImportedRunNote[]): string {
  if (runs.length <= 3) return runs.map(nameOf).join(', ');
  return `${nameOf(runs[0])} … ${nameOf(runs[runs.length - 1])}`;
}

export function importMessage(runs: readonly ImportedRunNote[]): string {
  const head = `Imported ${plural(runs.length, 'run')}`;
  if (runs.length === 0) return `${head}.`;
  // Runs grouped by what they lack, in file order of each group's first run.
  const groups = new Map<string, ImportedRunNote[]>();
  for (const r of runs) {
    const key = lacking(r).join(',');
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const without = [...groups.values()].filter((rs) => lacking(rs[0]).length > 0);
  const tail =
    groups.size === 1
      ? without.length
        ? ` ${runs.length === 1 ? 'Without' : 'All without'} ${words(lacking(runs[0]))}.`
        : ''
      : without.map((rs) => ` ${names(rs)}: without ${words(lacking(rs[0]))}.`).join('');
  return `${head}: ${names(runs)}.${tail}${derivedNote(runs)}`;
}

/** Which runs' verdicts the dashboard derived from the counts, their files having none. */
function derivedNote(runs: readonly ImportedRunNote[]): string {
  const derived = runs.filter((r) => r.missing.includes(DERIVED));
  if (derived.length === 0) return '';
  if (derived.length === runs.length)
    return runs.length === 1
      ? ' Verdict derived from the counts (the file gives none).'
      : ' Verdicts derived from the counts (the file gives none).';
  return ` ${names(derived)}: verdict derived from the counts (the file gives none).`;
}
