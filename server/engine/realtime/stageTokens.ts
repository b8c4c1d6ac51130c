/**
 * A realtime response's stage-0 engine metrics as vLLM-Omni's newest
 * benchmark reads them (docs/design.md#realtime): the `stage_metrics` an
 * event of the response carries (clients/duplex.py `_event_stage_metrics` /
 * `timing_summary`, benchmarks/duplex_session_metrics.py). The places are
 * upstream's, searched in its order: `vllm_omni`, `metadata`,
 * `metadata.vllm_omni`, `response.metadata`, `response.metadata.vllm_omni`;
 * snapshots are cumulative, so the last event of the response that carries a
 * stage 0 wins. From it come the output-token count (`num_tokens_out`) and
 * the token timing (`vllm_tpot_ms`, `vllm_itls_ms`; shared/metrics/stageTiming.ts).
 */
import type { RealtimeEvent } from '../transport/index.ts';
import type { Stage0Tokens } from '../../../shared/metrics/stageTiming.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stageMetrics(e: RealtimeEvent): Record<string, unknown> | null {
  const candidates: unknown[] = [e.vllm_omni];
  if (isObject(e.metadata)) candidates.push(e.metadata, e.metadata.vllm_omni);
  if (isObject(e.response) && isObject(e.response.metadata))
    candidates.push(e.response.metadata, e.response.metadata.vllm_omni);
  for (const c of candidates) if (isObject(c) && isObject(c.stage_metrics)) return c.stage_metrics;
  return null;
}

/** Stage 0's snapshot on this event, or null when the event carries none. */
export function stage0Snapshot(e: RealtimeEvent): Record<string, unknown> | null {
  const stage0 = stageMetrics(e)?.['0'];
  return isObject(stage0) ? stage0 : null;
}

/** Python's float() of the numbers a JSON value can be (a boolean is 0 or 1 there); null for anything else. */
function pyNumber(v: unknown): number | null {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return typeof v === 'number' ? v : null;
}

/**
 * `timing_summary`'s `stage0_tokens`: `int(num_tokens_out or 0)`, `float(vllm_tpot_ms or 0.0)` and the numbers of
 * `vllm_itls_ms`. A value no JSON number can be (a string, an object) counts as absent here, where Python would
 * parse a numeric string or raise.
 */
export function stage0Tokens(stage0: Record<string, unknown>): Stage0Tokens {
  const n = pyNumber(stage0.num_tokens_out);
  const tpot = pyNumber(stage0.vllm_tpot_ms);
  const itls = stage0.vllm_itls_ms;
  return {
    outputTokenCount: n !== null && Number.isFinite(n) ? Math.trunc(n) : 0,
    tpotMs: tpot ?? 0,
    itlsMs: Array.isArray(itls)
      ? itls.flatMap((v) => (typeof v === 'number' || typeof v === 'boolean' ? [+v] : []))
      : [],
  };
}

/**
 * The `tpot_ms` of the response's `duplex_request_metrics` entry: `vllm_tpot_ms` when it is a finite number ≥ 0
 * (upstream's `_finite_number(…, nonnegative=True)`), else null.
 */
export function reportedTpotMs(stage0: Record<string, unknown>): number | null {
  const v = stage0.vllm_tpot_ms;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}
