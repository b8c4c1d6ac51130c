/**
 * The output-token count of a realtime response as vLLM-Omni's newest
 * benchmark takes it (docs/design.md#realtime): the engine's stage-0
 * `num_tokens_out`, from the `stage_metrics` an event of the response carries
 * (clients/duplex.py `_event_stage_metrics` / `timing_summary`,
 * benchmarks/duplex_session_metrics.py). The places are upstream's, searched in
 * its order: `vllm_omni`, `metadata`, `metadata.vllm_omni`, `response.metadata`,
 * `response.metadata.vllm_omni`; the last event of the response that carries a
 * stage 0 wins. Not a number (or absent) is null: upstream then counts 0.
 */
import type { RealtimeEvent } from '../transport/index.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stageMetrics(e: RealtimeEvent): Record<string, unknown> | null {
  const candidates: unknown[] = [e.vllm_omni];
  if (isObject(e.metadata)) candidates.push(e.metadata, e.metadata.vllm_omni);
  if (isObject(e.response) && isObject(e.response.metadata))
    candidates.push(e.response.metadata, e.response.metadata.vllm_omni);
  for (const c of candidates) if (isObject(c) && isObject(c.stage_metrics)) return c.stage_metrics;
  return null;
}

/** Stage 0's `num_tokens_out` on this event, or null when the event carries no stage 0. */
export function stage0TokensOut(e: RealtimeEvent): number | null {
  const stage0 = stageMetrics(e)?.['0'];
  if (!isObject(stage0)) return null;
  // Upstream: int(stage0.get("num_tokens_out") or 0) — a stage 0 without a count counts 0.
  const n = stage0.num_tokens_out;
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : 0;
}
