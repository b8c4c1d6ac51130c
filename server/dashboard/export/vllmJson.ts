/**
 * The vLLM-compatible result JSON of a run: the result the engine wrote (or
 * the imported file's object) when stored; otherwise (a run interrupted
 * before the engine could write one, or a CLI-reported run) one rebuilt from
 * the stored summary and request rows with the builder the engine writes its
 * files with (shared/vllmResult/).
 */
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { RunSummary } from '../../../shared/protocol/protocol.ts';
import { isRequestEndStatus, type RequestEndStatus } from '../../../shared/types.ts';
import {
  buildResultJson,
  DETAILED_ARRAYS,
  detailedArrays,
  type ResultJsonInput,
} from '../../../shared/vllmResult/resultJson.ts';
import { sentinel } from './streamText.ts';
import { pyJsonDumps } from '../../../shared/vllmResult/pyJson.ts';
import { resultFloatKindFor } from '../../../shared/vllmResult/floatKeys.ts';

/** What an export reads of the engine config stored with a run (JSON; any field may be missing). */
interface StoredConfig {
  backend?: string;
  model?: string;
  burstiness?: number;
}

export interface RunForExport {
  id: string;
  label: string | null;
  model: string | null;
  numPrompts: number | null;
  maxConcurrency: number | null;
  requestRate: string | null;
  startedAtMs: number | null;
  config: StoredConfig | null;
  summary: RunSummary | null;
  counts: RunSummary['counts'];
  verdict: string | null;
  failFast: boolean;
  breakerCause: RunSummary['cause'];
  metadata: Record<string, string>;
}

/** What a rebuilt result counts of a run's rows (read in SQL for a streamed export: ../routes/export.ts). */
export interface RowFacts {
  rows: number;
  completed: number;
  /** Rows that ended otherwise. */
  failed: number;
}

export function rebuildResult(run: RunForExport, rows: RequestRow[]): Record<string, unknown> {
  const facts = {
    rows: rows.length,
    completed: rows.filter((r) => r.status === 'completed').length,
    failed: rows.filter((r) => r.status !== 'completed' && isRequestEndStatus(r.status)).length,
  };
  return rebuildFrom(run, facts, rowRecords(rows), rows.map(rowStatus));
}

/**
 * The result `rebuildResult` builds, with each per-request array (vLLM's detailed arrays, `statuses`) the
 * sentinel of its key (./streamText.ts): the frame a streamed export fills page by page.
 */
export function rebuildFrame(run: RunForExport, facts: RowFacts): Record<string, unknown> {
  return withSentinels(rebuildFrom(run, facts, [], []));
}

/** A request's end status as the result lists it (one that never ended reads not_dispatched). */
export const rowStatus = (r: RequestRow): RequestEndStatus =>
  isRequestEndStatus(r.status) ? r.status : 'not_dispatched';

/** The keys of a result that hold one entry per request. */
export const PER_REQUEST_KEYS = [...DETAILED_ARRAYS, 'statuses'] as const;

/** `result` with each of `keys` it has replaced by its sentinel, in place (the key order kept). */
export function withSentinels(
  result: Record<string, unknown>,
  keys: readonly string[] = PER_REQUEST_KEYS,
): Record<string, unknown> {
  for (const k of keys) if (k in result) result[k] = sentinel(k);
  return result;
}

/** One page of rows as the entries of per-request key `key`. */
export function pageEntries(key: (typeof PER_REQUEST_KEYS)[number], rows: RequestRow[]): unknown[] {
  return key === 'statuses' ? rows.map(rowStatus) : detailedArrays(rowRecords(rows))[key];
}

function rebuildFrom(
  run: RunForExport,
  facts: RowFacts,
  records: ResultJsonInput['records'],
  statuses: RequestEndStatus[],
): Record<string, unknown> {
  const metrics: Record<string, number> = {};
  // The Seed-TTS gate's keys keep their place, strings and nulls (per-utterance items are not in the summary).
  const seedTts: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(run.summary?.metrics ?? {})) {
    if (k.startsWith('seed_tts_')) seedTts[k] = v;
    else if (typeof v === 'number') metrics[k] = v;
  }
  // A run killed before it could finish (SIGKILL) has no summary: its counts come from the requests that ended.
  if (metrics.completed === undefined) metrics.completed = facts.completed;
  if (metrics.failed === undefined) metrics.failed = facts.failed;
  const rate = run.requestRate === null || run.requestRate === 'inf' ? Infinity : Number(run.requestRate);
  return buildResultJson({
    date: new Date(run.startedAtMs ?? Date.now()),
    backend: run.config?.backend ?? 'openai-chat-omni',
    label: run.label,
    modelId: run.model ?? run.config?.model ?? 'unknown',
    numPrompts: run.numPrompts ?? facts.rows,
    metadata: Object.entries(run.metadata),
    requestRate: Number.isNaN(rate) ? Infinity : rate,
    burstiness: run.config?.burstiness ?? 1,
    maxConcurrency: run.maxConcurrency,
    metrics,
    detailed: facts.rows > 0,
    records,
    statuses,
    counts: run.counts,
    failFast: {
      enabled: run.failFast,
      tripped: run.summary?.breakerTripped ?? false,
      cause: run.summary?.cause ?? run.breakerCause,
    },
    verdict: (run.summary?.verdict ?? run.verdict ?? 'interrupted') as RunSummary['verdict'],
    verdictReasons: run.summary?.verdictReasons ?? ['rebuilt from the stored run'],
    seedTts: Object.keys(seedTts).length > 0 ? seedTts : null,
  });
}

/**
 * Stored request rows (dataset order) as engine records. Rows keep no token
 * intervals or text: itls are empty and generated texts ''.
 */
export function rowRecords(rows: RequestRow[]): ResultJsonInput['records'] {
  return rows.map((r) => ({
    success: r.status === 'completed',
    error: r.error,
    ttft: r.ttftS,
    itl: [],
    outputTokens: r.outputTokens,
    promptLen: r.promptLen,
    generatedText: '',
    audioDuration: r.audioDurationS,
    audioFrames: 0,
    startTime: (r.sentT ?? 0) / 1000,
    latency: r.e2elS,
    audioTtfp: r.audioTtfpS,
    audioRtf: 0,
    textLatency: r.e2elS,
  }));
}

/** vLLM's own layout (Python json.dumps), never a bare NaN. */
export function vllmText(result: Record<string, unknown>): string {
  return pyJsonDumps(result, resultFloatKindFor(result));
}
