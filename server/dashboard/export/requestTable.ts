/**
 * The per-request table of a run, the CSV's and the evidence file's: one row
 * per request in dataset order with where it was in Code2Wav (its last op's
 * worker, op and phase when it ended, whether it was in an op the watchdog
 * reported stalled, the stalled op it queued behind) beside its times and
 * metrics. A value that does not exist is null (a blank cell), never 0: a
 * request that never completed has no E2E latency or audio duration, one that
 * got no first token no TTFT.
 */
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { OpRecord, RunModel } from '../../../shared/runView/runModel.ts';
import type { BlockedWait } from '../../../shared/runView/runStory.ts';
import { measuredOf } from '../../../shared/requests/measured.ts';

type Cell = string | number | boolean | null;

/** Where a request was in Code2Wav, from the run's telemetry (nothing for a target that sends none). */
interface Code2WavPlace {
  op: OpRecord | null;
  phase: string | null;
  inStalledOp: boolean;
}

function placeOf(model: Pick<RunModel, 'ops' | 'opsByRequest'>, row: RequestRow): Code2WavPlace {
  const ops = (model.opsByRequest[row.requestId] ?? [])
    .map((k) => model.ops[k])
    .filter((o): o is OpRecord => o !== undefined);
  const op = ops[ops.length - 1] ?? null;
  // The phase its last op was in when the request ended (an op outlives the requests a stall makes time out).
  const end = row.endT ?? Infinity;
  const phase = op ? ([...op.phases].reverse().find((p) => p.t <= end) ?? op.phases[0])?.phase : undefined;
  return { op, phase: phase ?? null, inStalledOp: ops.some((o) => o.stalled) };
}

const COLUMNS: [string, (r: RequestRow, at: Code2WavPlace, wait: BlockedWait | undefined) => Cell][] = [
  ['index', (r) => r.index],
  ['request_id', (r) => r.requestId],
  ['status', (r) => r.status],
  ['worker', (_, at) => at.op?.workerId ?? null],
  ['op', (_, at) => at.op?.opId ?? null],
  ['phase', (_, at) => at.phase],
  ['in_stalled_op', (_, at) => (at.op ? at.inStalledOp : null)],
  ['waited_behind_op', (_, __, w) => w?.opId ?? null],
  ['queued_ms', (r) => r.queuedT],
  ['sent_ms', (r) => r.sentT],
  ['first_token_ms', (r) => r.firstTokenT],
  ['first_audio_ms', (r) => r.firstAudioT],
  ['end_ms', (r) => r.endT],
  // Which values exist: one rule with the run page's request panel (shared/requests/measured.ts).
  ['ttft_s', (r) => measuredOf(r).ttftS],
  ['e2el_s', (r) => measuredOf(r).e2elS],
  ['audio_ttfp_s', (r) => measuredOf(r).audioTtfpS],
  ['audio_duration_s', (r) => measuredOf(r).audioDurationS],
  ['output_tokens', (r) => r.outputTokens],
  ['prompt_len', (r) => r.promptLen],
  ['attempts', (r) => r.attempts],
  ['timeout_kind', (r) => r.timeoutKind],
  ['error', (r) => r.error],
];

export interface RequestTable {
  columns: string[];
  rows: Cell[][];
}

/** The table of `rows`, placed in Code2Wav by the run's model; `waits` from `blockedWaits`, by request id. */
export function requestTable(
  rows: readonly RequestRow[],
  model: Pick<RunModel, 'ops' | 'opsByRequest'>,
  waits: Record<string, BlockedWait>,
): RequestTable {
  return {
    columns: COLUMNS.map(([h]) => h),
    rows: rows.map((r) => {
      const at = placeOf(model, r);
      return COLUMNS.map(([, get]) => get(r, at, waits[r.requestId]));
    }),
  };
}
