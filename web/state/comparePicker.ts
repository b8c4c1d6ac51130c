/**
 * The Compare picker's search, pure: what a person types — free text (id,
 * label, model, target, any metadata value) and `key=value` pairs (exact
 * metadata) — and the dates the run happened between, as the runs list's
 * filter; and how a found run reads.
 */
import type { RunListItem } from '../../shared/protocol/apiSchemas.ts';
import type { RunFilter } from './runFilter.ts';
import { humanVerdict } from './verdictWords.ts';
import { dateTime } from '../../shared/format.ts';
import { runName } from './runName.ts';

/** How many runs the picker lists at once. */
export const PICKER_LIMIT = 12;

export function pickerFilter(text: string, since: string, until: string): RunFilter {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const metadata = words.filter((w) => w.indexOf('=') > 0);
  const q = words.filter((w) => w.indexOf('=') <= 0).join(' ');
  return {
    ...(q ? { q } : {}),
    ...(metadata.length ? { metadata } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    limit: PICKER_LIMIT,
  };
}

/** When the run happened: its start, or an import's file date; else when it was added. */
export const happenedAtMs = (r: Pick<RunListItem, 'startedAtMs' | 'createdAtMs'>): number =>
  r.startedAtMs ?? r.createdAtMs;

/** `label · verdict · 2026-04-01 18:00:00 UTC · build 14600 on node-b`: enough to tell nightlies apart. */
export function pickerLine(r: RunListItem): string {
  const where = [
    r.metadata.ci_build ? `build ${r.metadata.ci_build}` : null,
    r.metadata.ci_node ? `on ${r.metadata.ci_node}` : null,
  ]
    .filter(Boolean)
    .join(' ');
  const when = dateTime(happenedAtMs(r));
  return [r.label || runName(r), humanVerdict(r.verdict ?? r.status), when, where].filter(Boolean).join(' · ');
}
