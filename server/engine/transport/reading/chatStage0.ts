/**
 * An `openai-chat-omni` request's TPOT/ITL from stage 0's engine metrics,
 * as vLLM-Omni's newest client takes them when its own receive times give
 * none (docs/design.md#stage-0-token-timings): `patch.py`
 * `_apply_chat_stage0_token_timings` hands the last `metrics.stage_metrics["0"]`
 * of the stream to `_apply_stage0_token_timings` (shared/metrics/stageTiming.ts)
 * as one response, when its `num_tokens_out` is the request's output-token count.
 */
import { stage0TokenTimings, type Stage0Timing } from '../../../../shared/metrics/stageTiming.ts';
import { coercePositiveInt, isObject } from './payload.ts';

/**
 * Python's `_nonnegative_number` accepts an int or float that is no bool; anything else here becomes NaN, which
 * the shared rule refuses as it refuses a negative or infinite value.
 */
const jsonNumber = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);

/**
 * The timing `_apply_chat_stage0_token_timings` leaves for a request whose stage 0 snapshot is `stage0` (undefined:
 * the stream had none), or null where it returns before touching the request: no stage-0 object, or its
 * `num_tokens_out` (coerced as upstream's `coerce_positive_int_scalar`) is not `outputTokens`. A non-null result
 * replaces the request's ITLs and text latency even when `measured` is false (upstream clears both first).
 */
export function chatStage0Timing(stage0: unknown, ttft: number, outputTokens: number): Stage0Timing | null {
  if (!isObject(stage0)) return null;
  const count = coercePositiveInt(stage0.num_tokens_out);
  const expected = coercePositiveInt(outputTokens);
  if (count === null || expected === null || count !== expected) return null;
  const itls = stage0.vllm_itls_ms;
  return stage0TokenTimings(
    ttft,
    [
      {
        outputTokenCount: count,
        tpotMs: jsonNumber(stage0.vllm_tpot_ms),
        // Not a list: no exact ITLs (the count check fails for the 2+ tokens this is only asked about).
        itlsMs: Array.isArray(itls) ? itls.map(jsonNumber) : [],
      },
    ],
    expected,
  );
}

/** Whether a client-measured ITL list has a positive interval (upstream's gate for the stage-0 fallback). */
export function hasPositiveItl(itl: readonly number[]): boolean {
  for (const v of itl) if (Number.isFinite(v) && v > 0) return true;
  return false;
}
