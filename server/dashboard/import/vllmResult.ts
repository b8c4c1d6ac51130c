/**
 * One vLLM (or vLLM-Omni) result object → a stored run: summary metrics,
 * counts and verdict (ours when the file has them, else derived), metadata
 * (`--metadata` pairs are the unknown string-valued top-level keys), and one
 * request row per entry of the detailed arrays when present. Also says
 * which parts the file had, so the UI can show what an import lacks.
 */
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { RunSummary } from '../../../shared/protocol/protocol.ts';
import { isRequestEndStatus, type BreakerCause, type RunCounts, type Verdict } from '../../../shared/types.ts';
import { StallscopeError } from '../../../shared/errors.ts';
import { isEmptyCompletion, withEmptyCompletions } from '../../../shared/metrics/emptyAnswers.ts';
import { asText } from '../../../shared/text.ts';
import { stoppedByFromJson } from '../../../shared/vllmResult/resultJson.ts';
import { findUnstorable, INT4_MAX } from '../../../shared/storage/storable.ts';
import { blankRow } from '../hub/runTracker.ts';

/** Keys vLLM/vLLM-Omni/stallscope write themselves (everything else string-valued is `--metadata`). */
const KNOWN = new Set([
  'date',
  'endpoint_type',
  'backend',
  'label',
  'model_id',
  'tokenizer_id',
  'num_prompts',
  'request_rate',
  'burstiness',
  'max_concurrency',
  'duration',
  'completed',
  'failed',
  'verdict',
  'statuses',
  'errors',
  'generated_texts',
]);
const DETAILED = ['input_lens', 'output_lens', 'ttfts', 'itls', 'start_times', 'generated_texts', 'errors'];
const FAIL_FAST = [
  'timed_out_requests',
  'cancelled_after_timeout_requests',
  'not_dispatched_requests',
  'fail_fast_enabled',
  'fail_fast_tripped',
  'fail_fast_cause',
];
const VERDICTS: Verdict[] = ['passed', 'failed', 'failed_closed', 'interrupted', 'errored'];

const num = (v: unknown): number | null => (typeof v === 'number' && !Number.isNaN(v) ? v : null);
const arr = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);

export interface ImportedRun {
  summary: RunSummary;
  rows: RequestRow[];
  present: string[];
  missing: string[];
  metadata: Record<string, string>;
  startedAtMs: number | null;
  requestRate: string | null;
}

/** `20260401-184218` (vLLM's local-time date) → epoch ms, or null. */
export function parseVllmDate(d: unknown): number | null {
  const m = typeof d === 'string' ? /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(d) : null;
  return m ? new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]).getTime() : null;
}

/** The keys of a result object stored in a text column of the run (label, model, target, dataset, rate). */
const TEXT_COLUMNS = ['label', 'model_id', 'base_url', 'dataset_name', 'request_rate'];
/** The keys stored in an INTEGER column. */
const INT_COLUMNS = ['num_prompts', 'max_concurrency'];

/**
 * What in a result object no run column can hold (docs/design.md#storable-values), as the file's key and why; null
 * when all can be stored. Text columns and the metadata pairs must be storable text; `num_prompts` and
 * `max_concurrency` integers an INTEGER holds (`1e309` parses to Infinity).
 */
export function columnIssue(o: Record<string, unknown>, metadata: Record<string, string>): Unstorable | null {
  for (const k of INT_COLUMNS) {
    const v = o[k];
    if (typeof v === 'number' && !(Number.isInteger(v) && v >= 0 && v <= INT4_MAX))
      return { field: k, message: `must be an integer from 0 to ${INT4_MAX} (is ${v})` };
  }
  for (const k of TEXT_COLUMNS) {
    const bad = typeof o[k] === 'string' ? findUnstorable(o[k]) : null;
    if (bad) return { field: k, message: bad.message };
  }
  const bad = findUnstorable(metadata);
  return bad ? { field: bad.pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~'), message: bad.message } : null;
}

interface Unstorable {
  field: string;
  message: string;
}

export function interpretResult(o: Record<string, unknown>, runId: string, index: number): ImportedRun {
  if (!['completed', 'duration', 'num_prompts', 'backend', 'model_id'].some((k) => k in o)) {
    throw new StallscopeError(
      'API_IMPORT_INVALID',
      `object ${index + 1} has none of the vLLM result keys (completed, duration, num_prompts, backend, model_id)`,
    );
  }
  const parts: Record<string, boolean> = {
    summary: num(o.completed) !== null && num(o.duration) !== null,
    percentiles: Object.keys(o).some((k) => /^(mean|median|p\d+(\.\d+)?)_/.test(k)),
    audio: Object.keys(o).some((k) => k.includes('audio')),
    detailed: DETAILED.slice(0, 4).some((k) => arr(o[k]) !== null),
    failFast: FAIL_FAST.some((k) => k in o),
    statuses: arr(o.statuses) !== null,
    verdict: typeof o.verdict === 'string',
  };
  const completed = num(o.completed) ?? 0;
  const numPrompts = num(o.num_prompts);
  const failed = num(o.failed) ?? (numPrompts !== null ? Math.max(0, numPrompts - completed) : 0);
  const timedOut = num(o.timed_out_requests) ?? 0;
  const cancelledAfterTimeout = num(o.cancelled_after_timeout_requests) ?? 0;
  const cancelled = num(o.cancelled_requests) ?? 0;
  // vLLM's `failed` is everything not completed, as our counting rule (shared/requests/outcomes.ts).
  const counts: RunCounts = {
    total: completed + failed,
    completed,
    failed,
    timedOut,
    cancelledAfterTimeout,
    cancelled,
    errored: Math.max(0, failed - timedOut - cancelledAfterTimeout - cancelled),
    unsent: num(o.not_dispatched_requests) ?? 0,
  };
  const derived: Verdict =
    counts.timedOut + counts.cancelledAfterTimeout + counts.unsent > 0
      ? 'failed_closed'
      : failed > 0 || completed === 0
        ? 'failed'
        : 'passed';
  const verdict = VERDICTS.includes(o.verdict as Verdict) ? (o.verdict as Verdict) : derived;
  const reasons = Array.isArray(o.verdict_reasons)
    ? o.verdict_reasons.map(String)
    : [`imported; verdict derived from the counts (${completed} completed, ${failed} failed)`];
  const metrics: RunSummary['metrics'] = {};
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'number') metrics[k] = Number.isFinite(v) ? v : null;
    else if (typeof v === 'string' && !KNOWN.has(k)) metadata[k] = v;
  }
  const cause =
    typeof o.fail_fast_cause === 'object' && o.fail_fast_cause !== null ? (o.fail_fast_cause as BreakerCause) : null;
  const rows = detailedRows(o, runId);
  const judged = withEmptyCompletions(verdict, reasons, rows.filter(isEmptyCompletion).length);
  const summary: RunSummary = {
    verdict: judged.verdict,
    verdictReasons: judged.reasons,
    counts,
    durationS: num(o.duration) ?? 0,
    breakerTripped: o.fail_fast_tripped === true,
    cause,
    stoppedBy: stoppedByFromJson(o.stopped_by),
    metrics,
  };
  const rate = o.request_rate;
  return {
    summary,
    rows,
    metadata,
    startedAtMs: parseVllmDate(o.date),
    requestRate:
      rate === undefined || rate === null
        ? null
        : typeof rate === 'number' && !Number.isFinite(rate)
          ? 'inf'
          : asText(rate),
    present: Object.keys(parts).filter((k) => parts[k]),
    missing: Object.keys(parts).filter((k) => !parts[k]),
  };
}

/** Request rows from `--save-detailed` arrays (seconds in the file; our times are ms from the first start). */
function detailedRows(o: Record<string, unknown>, runId: string): RequestRow[] {
  const ttfts = arr(o.ttfts),
    outs = arr(o.output_lens),
    ins = arr(o.input_lens),
    itls = arr(o.itls);
  const starts = arr(o.start_times),
    errors = arr(o.errors),
    statuses = arr(o.statuses);
  const n = Math.max(ttfts?.length ?? 0, outs?.length ?? 0, ins?.length ?? 0);
  const finiteStarts = (starts ?? []).map(num).filter((x): x is number => x !== null && x > 0);
  // A loop, not Math.min(...xs): 400,000 arguments overflow the stack.
  const t0 = finiteStarts.length ? finiteStarts.reduce((a, b) => (b < a ? b : a)) : null;
  const rows: RequestRow[] = [];
  for (let i = 0; i < n; i++) {
    const r = blankRow(i, `${runId}-${i}`);
    const error = typeof errors?.[i] === 'string' ? (errors[i] as string) : '';
    const st = statuses?.[i];
    r.status = isRequestEndStatus(st) ? st : error ? 'failed' : 'completed';
    r.error = error;
    r.ttftS = num(ttfts?.[i]) ?? 0;
    const itl = (arr(itls?.[i]) ?? []).map((x) => num(x) ?? 0);
    r.e2elS = r.status === 'completed' ? r.ttftS + itl.reduce((a, b) => a + b, 0) : 0;
    r.outputTokens = num(outs?.[i]) ?? 0;
    r.promptLen = num(ins?.[i]) ?? 0;
    r.attempts = r.status === 'not_dispatched' ? 0 : 1;
    const s = num(starts?.[i]);
    if (t0 !== null && s !== null && s > 0) {
      r.sentT = (s - t0) * 1000;
      if (r.status === 'completed') {
        r.firstTokenT = r.sentT + r.ttftS * 1000;
        r.endT = r.sentT + r.e2elS * 1000;
      }
    }
    rows.push(r);
  }
  return rows;
}
