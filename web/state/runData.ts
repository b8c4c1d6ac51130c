/**
 * What per-request data a run has, and what that allows: which exports are
 * worth offering (an imported result without per-request arrays would give an
 * empty Perfetto trace and a header-only CSV) and what the timeline lacks.
 * Pure, for the run page.
 */
import type { RequestView } from '../../shared/runView/runModel.ts';
import { dateTime } from '../../shared/format.ts';

/** `none`: no request rows; `untimed`: rows without send times (vLLM's detailed arrays lack start_times); `timed`. */
export type PerRequestData = 'none' | 'untimed' | 'timed';

export function perRequestData(rows: readonly RequestView[]): PerRequestData {
  if (rows.length === 0) return 'none';
  return rows.some((r) => r.sentT !== null) ? 'timed' : 'untimed';
}

export type ExportFormat = 'vllm' | 'trace' | 'csv';

export interface ExportChoice {
  format: ExportFormat;
  label: string;
  /** Why this export is not offered (the button is disabled and says so), or null. */
  disabledReason: string | null;
}

/**
 * The exports of a run. `data` is null while the rows are still loading (or
 * the run is live: rows arrive as it goes): everything is offered then.
 */
export function exportChoices(data: PerRequestData | null): ExportChoice[] {
  const noRows = 'no per-request data in this run (its result file had no per-request arrays)';
  return [
    { format: 'vllm', label: 'vLLM result JSON', disabledReason: null },
    {
      format: 'trace',
      label: 'Perfetto trace',
      disabledReason:
        data === 'none'
          ? `${noRows}, so the trace would be empty.`
          : data === 'untimed'
            ? 'no per-request start times in the result file (start_times), so the trace would have nothing to place.'
            : null,
    },
    {
      format: 'csv',
      label: 'CSV of requests',
      disabledReason: data === 'none' ? `${noRows}, so the CSV would hold only its header.` : null,
    },
  ];
}

/** What the timeline cannot show for lack of data, or null when it can show the run. */
export function timelineGap(data: PerRequestData, source: string): string | null {
  if (data !== 'untimed') return null;
  return (
    `The ${source === 'import' ? 'imported result file' : 'run'} has per-request latencies (TTFT, inter-token ` +
    'latencies, token counts) but no per-request start times (vLLM writes them as start_times), so the timeline ' +
    'cannot place the requests in time. Each row still opens its request; the metrics and distributions below hold.'
  );
}

/**
 * The run page's line for reported events the database refused (docs/design.md#outage-buffer): they were
 * acknowledged, so the reporter does not know; the page must say it. Null when none were.
 */
export function droppedWords(n: number, error: string | null): string | null {
  if (n <= 0) return null;
  return `${n} event${n === 1 ? '' : 's'} of this run could not be stored (database error: ${error ?? 'unknown'}).`;
}

/** What the timeline says of a run whose request rows and events retention pruned (docs/design.md#retention). */
export function prunedWords(prunedAtMs: number, timeZone?: string): string {
  return (
    `This run's request rows and event stream were pruned by retention on ${dateTime(prunedAtMs, timeZone)}, so ` +
    'there is no timeline. Its summary, verdict, metadata, result file and stall evidence are kept. Pin a run to ' +
    'keep it whole.'
  );
}
