/**
 * The notice after an import, said once: a JSON-lines file of 16 runs that all
 * lack the same parts gets one "without …", not sixteen.
 */

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
  verdict: 'a verdict',
};

const words = (missing: readonly string[]) => missing.map((m) => PART_WORDS[m] ?? m).join(', ');
const nameOf = (r: ImportedRunNote) => r.label ?? r.id;
/** At most a few names: a long file is summed up by its first and last run. */
function names(runs: readonly ImportedRunNote[]): string {
  if (runs.length <= 3) return runs.map(nameOf).join(', ');
  return `${nameOf(runs[0])} … ${nameOf(runs[runs.length - 1])}`;
}

export function importMessage(runs: readonly ImportedRunNote[]): string {
  const head = `Imported ${runs.length} run${runs.length === 1 ? '' : 's'}`;
  if (runs.length === 0) return `${head}.`;
  // Runs grouped by what they lack, in file order of each group's first run.
  const groups = new Map<string, ImportedRunNote[]>();
  for (const r of runs) {
    const key = r.missing.join(',');
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const lacking = [...groups.values()].filter((rs) => rs[0].missing.length > 0);
  const tail =
    groups.size === 1
      ? lacking.length
        ? ` ${runs.length === 1 ? 'Without' : 'All without'} ${words(runs[0].missing)}.`
        : ''
      : lacking.map((rs) => ` ${names(rs)}: without ${words(rs[0].missing)}.`).join('');
  return `${head}: ${names(runs)}.${tail}`;
}
