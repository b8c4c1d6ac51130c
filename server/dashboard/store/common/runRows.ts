/**
 * A run's row as both stores read and write it: the columns a new run is
 * inserted with, the column each `RunUpdate` field is stored in, and the row
 * turned into the REST reply shapes of shared/protocol/apiSchemas.ts (so
 * routes stay thin).
 */
import type { RunListItem } from '../../../../shared/protocol/apiSchemas.ts';
import type { RunState, RunSummary } from '../../../../shared/protocol/protocol.ts';
import { normalizeCounts } from '../../../../shared/requests/outcomes.ts';
import { stateWithNewNames, summaryWithNewNames } from '../../../../shared/protocol/legacyNames.ts';
import type { Verdict } from '../../../../shared/types.ts';
import type { FirstTimeout } from '../../../../shared/stalls/stallEvidence.ts';
import type { ServerIdentity } from '../../../../shared/runInfo/serverIdentity.ts';
import type { Selectable } from 'kysely';
import type { NewRun, RunSource, RunUpdate, StoredRunRow } from './records.ts';
import type { RunsTable } from './schema.ts';

type RunColumns = Selectable<RunsTable>;

/**
 * A run's row as the list and detail queries select it: the runs table's columns (schema.ts, the one declaration),
 * the detail-only ones optional, plus the two stall columns the queries join in.
 */
export type RunRow = Omit<
  Pick<
    RunColumns,
    | 'id'
    | 'source'
    | 'status'
    | 'verdict'
    | 'label'
    | 'model'
    | 'target'
    | 'dataset'
    | 'num_prompts'
    | 'max_concurrency'
    | 'request_rate'
    | 'fail_fast'
    | 'created_at_ms'
    | 'started_at_ms'
    | 'finished_at_ms'
    | 'last_seq'
    | 'state_json'
    | 'summary_json'
    | 'metadata_json'
  >,
  'source'
> &
  Partial<
    Pick<
      RunColumns,
      | 'spec_json'
      | 'config_json'
      | 'import_json'
      | 'error'
      | 'first_timeout_json'
      | 'server_identity_json'
      | 'dropped_events'
      | 'dropped_error'
    >
  > & { source: RunSource; stall_count: number; stall_phase: string | null };

const parse = <T>(s: string | null | undefined): T | null => (s ? (JSON.parse(s) as T) : null);

/** A run's whole row as the stores return it (both stores read the same columns), under today's names. */
export function toStoredRun(r: RunRow): StoredRunRow {
  return {
    ...toListItem(r),
    spec: parse(r.spec_json),
    config: parse(r.config_json),
    summary: summaryWithNewNames(parse<RunSummary>(r.summary_json)),
    importInfo: parse(r.import_json),
    error: r.error ?? null,
    lastSeq: r.last_seq,
    state: stateWithNewNames(parse<RunState>(r.state_json)),
    firstTimeout: parse<FirstTimeout>(r.first_timeout_json),
    serverIdentity: parse<ServerIdentity>(r.server_identity_json),
    droppedEvents: Number(r.dropped_events ?? 0),
    droppedError: r.dropped_error ?? null,
  };
}

export function toListItem(r: RunRow): RunListItem {
  const state = parse<RunState>(r.state_json);
  const summary = parse<
    { durationS?: number; counts?: RunListItem['counts'] } & Partial<
      Pick<RunSummary, 'breakerTripped' | 'cause' | 'stoppedBy'>
    >
  >(r.summary_json);
  return {
    id: r.id,
    source: r.source,
    status: r.status,
    verdict: r.verdict as Verdict | null, // written only from a Verdict
    label: r.label,
    model: r.model,
    target: r.target,
    dataset: r.dataset,
    numPrompts: r.num_prompts,
    maxConcurrency: r.max_concurrency,
    requestRate: r.request_rate,
    failFast: r.fail_fast === 1,
    createdAtMs: r.created_at_ms,
    startedAtMs: r.started_at_ms,
    finishedAtMs: r.finished_at_ms,
    durationS:
      summary?.durationS ?? (r.finished_at_ms && r.started_at_ms ? (r.finished_at_ms - r.started_at_ms) / 1000 : null),
    counts: normalizeCounts(summary?.counts ?? state?.counts),
    metadata: JSON.parse(r.metadata_json) as Record<string, string>,
    stallCount: r.stall_count,
    stallPhase: r.stall_phase,
    // An import has no live state: its breaker is the result file's (the stop rule names its cancellations).
    breaker: state?.breaker ?? {
      tripped: summary?.breakerTripped === true,
      cause: summary?.cause ?? null,
      ...(summary?.stoppedBy ? { stoppedBy: summary.stoppedBy } : {}),
    },
  };
}

/** A new run's columns, in the order of `runInsertValues` (both stores insert a run by these). */
export const RUN_INSERT_COLUMNS =
  'id, source, status, label, model, target, dataset, num_prompts, max_concurrency, request_rate, ' +
  'fail_fast, created_at_ms, started_at_ms, spec_json, config_json, metadata_json';

export function runInsertValues(n: NewRun): unknown[] {
  return [
    n.id,
    n.source,
    n.status,
    n.label,
    n.model,
    n.target,
    n.dataset,
    n.numPrompts,
    n.maxConcurrency,
    n.requestRate,
    n.failFast ? 1 : 0,
    n.createdAtMs,
    n.startedAtMs ?? null,
    n.spec === undefined ? null : JSON.stringify(n.spec),
    n.config === undefined ? null : JSON.stringify(n.config),
    JSON.stringify(n.metadata),
  ];
}

/** The column each `RunUpdate` field is stored in (both stores update a run by this table). */
export const RUN_UPDATE_COLUMNS: Record<keyof RunUpdate, string> = {
  config: 'config_json',
  target: 'target',
  status: 'status',
  verdict: 'verdict',
  startedAtMs: 'started_at_ms',
  finishedAtMs: 'finished_at_ms',
  summary: 'summary_json',
  result: 'result_json',
  resultParts: 'result_parts',
  importInfo: 'import_json',
  error: 'error',
  state: 'state_json',
  lastSeq: 'last_seq',
  firstTimeout: 'first_timeout_json',
  serverIdentity: 'server_identity_json',
};

/** The `RunUpdate` fields stored as JSON text. */
export const RUN_UPDATE_JSON: ReadonlySet<string> = new Set([
  'summary',
  'result',
  'importInfo',
  'state',
  'config',
  'firstTimeout',
  'serverIdentity',
]);
