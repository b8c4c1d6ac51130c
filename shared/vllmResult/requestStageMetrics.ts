/**
 * The result's `request_stage_metrics`: per request, in request order, the
 * few stage fields vLLM-Omni's newest client keeps of the engine's stage
 * metrics (docs/design.md#request-stage-metrics). Upstream merges every
 * event's `metrics.stage_metrics` into one dict per request (`dict.update`:
 * a stage's later entry replaces its earlier one whole), then writes
 * `_compact_request_stage_metrics` of it: each stage whose entry is an
 * object, with only `_REQUEST_STAGE_METRIC_FIELDS` (the full entries carry
 * per-token latency lists); a request without stage metrics is `null`; the
 * key only when some request has a non-empty one.
 *
 * The compact form is kept while the stream is read, so a request holds a
 * few numbers per stage, not the server's lists; and it is bounded: at most
 * MAX_STAGES stages, values that are JSON scalars, strings of at most
 * MAX_STAGE_TEXT characters. A server past those bounds loses the excess,
 * and `mergeStageMetrics` says so for the request's warning.
 */

/** `_REQUEST_STAGE_METRIC_FIELDS`, in upstream's order (`defs.NUM_TOKENS_OUT`, …, `f"{defs.AUDIO_DURATION}_s"`). */
export const REQUEST_STAGE_METRIC_FIELDS = ['num_tokens_out', 'finish_reason', 'audio_frames', 'audio_duration_s'];

/** vLLM-Omni's pipelines have a handful of stages; more than this is a server gone wrong. */
export const MAX_STAGES = 16;
/** A finish reason is a word; a longer string is not kept. */
export const MAX_STAGE_TEXT = 200;

export type StageValue = number | string | boolean | null;
/** One request's kept fields per stage, keyed by stage id. */
export type RequestStageSnapshot = Record<string, Record<string, StageValue>>;

/**
 * A request's snapshot while it is read: stage id → its kept fields, or null for a stage whose latest entry is no
 * object (upstream keeps its place in the dict and leaves it out of the compact form).
 */
export type StageSnapshotBuilder = Map<string, Record<string, StageValue> | null>;

/**
 * Merges one event's `metrics.stage_metrics` into `into`, as upstream's `dict.update` followed by the compaction
 * would leave it. Returns what was refused for the bounds (null: nothing).
 */
export function mergeStageMetrics(into: StageSnapshotBuilder, stageMetrics: Record<string, unknown>): string | null {
  let refused: string | null = null;
  for (const [stage, entry] of Object.entries(stageMetrics)) {
    if (!into.has(stage) && into.size >= MAX_STAGES) {
      refused = `stage metrics name more than ${MAX_STAGES} stages; the others are not kept`;
      continue;
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      into.set(stage, null);
      continue;
    }
    const kept: Record<string, StageValue> = {};
    const fields = entry as Record<string, unknown>;
    for (const f of REQUEST_STAGE_METRIC_FIELDS) {
      if (!(f in fields)) continue;
      const v = fields[f];
      if (isScalar(v)) kept[f] = v;
      else refused = `stage ${stage}'s ${f} is not a number or a short string; it is not kept`;
    }
    into.set(stage, kept);
  }
  return refused;
}

function isScalar(v: unknown): v is StageValue {
  if (v === null || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'string' && v.length <= MAX_STAGE_TEXT;
}

/** `_compact_request_stage_metrics` of a request's merged stage metrics; undefined: the stream had none. */
export function compactStageSnapshot(b: StageSnapshotBuilder | undefined): RequestStageSnapshot | undefined {
  if (b === undefined || b.size === 0) return undefined;
  const out: RequestStageSnapshot = {};
  for (const [stage, kept] of b) if (kept !== null) out[stage] = kept;
  return out;
}

/**
 * The `request_stage_metrics` list for a run's records in request order, or null when upstream would not write
 * the key: no request has a non-empty snapshot (Python's `any()` of dicts and Nones).
 */
export function requestStageMetrics(
  records: Iterable<{ stageSnapshot?: RequestStageSnapshot }>,
): (RequestStageSnapshot | null)[] | null {
  const list: (RequestStageSnapshot | null)[] = [];
  let any = false;
  for (const r of records) {
    const s = r.stageSnapshot ?? null;
    if (s !== null && Object.keys(s).length > 0) any = true;
    list.push(s);
  }
  return any ? list : null;
}
