/**
 * A realtime request's TPOT/ITL from the engine's stage-0 metrics, as
 * vLLM-Omni's newest realtime tts client takes them (docs/design.md#realtime):
 * `clients/duplex.py` `EventCollector.timing_summary` reduces each response's
 * last stage-0 snapshot to `stage0_tokens`, and `patch.py`
 * `_apply_stage0_token_timings` turns the request's responses into the
 * `itl` list and the `text_latency` that `calculate_metrics` reads
 * (calculate.ts `requestTpot`). Client receive times play no part: a realtime
 * answer's text arrives in transcript pieces, not one delta per token.
 */

/** One response's `stage0_tokens`: stage 0's token count, mean TPOT and inter-token latencies (ms). */
export interface Stage0Tokens {
  /** `int(num_tokens_out or 0)`. */
  outputTokenCount: number;
  /** `float(vllm_tpot_ms or 0.0)`. */
  tpotMs: number;
  /** The numbers of `vllm_itls_ms` (a list), in order; [] without one. */
  itlsMs: number[];
}

/** What `_apply_stage0_token_timings` leaves on the request: ITLs in seconds, and its text latency. */
export interface Stage0Timing {
  itl: number[];
  textLatency: number;
  /** Whether the responses' stage 0 gave a complete token timing (else: no TPOT/ITL for the request). */
  measured: boolean;
}

const nonNegative = (v: number) => Number.isFinite(v) && v >= 0;

/**
 * `_apply_stage0_token_timings` for a request whose TTFT is `ttft` (seconds), its responses' stage 0 (`null` for a
 * response without one) and the output tokens it counted. Exact ITLs when every response with more than one token
 * lists one per interval (and they sum above 0); else each such response's positive TPOT weighted by its intervals
 * and projected onto the request's tokens (text latency = TTFT + TPOT × (tokens − 1)); else nothing measured.
 */
export function stage0TokenTimings(
  ttft: number,
  stages: readonly (Stage0Tokens | null)[],
  expectedOutputTokens: number,
): Stage0Timing {
  const none: Stage0Timing = { itl: [], textLatency: ttft, measured: false };
  let total = 0;
  for (const s of stages) {
    if (s === null || !Number.isInteger(s.outputTokenCount) || s.outputTokenCount < 0) return none;
    total += s.outputTokenCount;
  }
  if (stages.length === 0 || total !== expectedOutputTokens) return none;
  const timed = (stages as Stage0Tokens[]).filter((s) => s.outputTokenCount > 1);
  if (timed.length === 0) return none;

  if (timed.every((s) => s.itlsMs.length === s.outputTokenCount - 1 && s.itlsMs.every(nonNegative))) {
    const itl = timed.flatMap((s) => s.itlsMs.map((v) => v / 1000));
    let sum = 0;
    for (const v of itl) sum += v; // Python's sequential sum()
    if (sum > 0) return { itl, textLatency: ttft + sum, measured: true };
  }
  let weighted = 0;
  let intervals = 0;
  for (const s of timed) {
    if (!(nonNegative(s.tpotMs) && s.tpotMs > 0)) return none;
    weighted += s.tpotMs * (s.outputTokenCount - 1);
    intervals += s.outputTokenCount - 1;
  }
  // Upstream projects the weighted per-response TPOT onto the request's whole token count; the gaps between
  // responses are left out on purpose.
  return { itl: [], textLatency: ttft + (weighted / intervals / 1000) * (expectedOutputTokens - 1), measured: true };
}
