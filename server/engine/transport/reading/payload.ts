/**
 * Readers for the loosely typed JSON of one chat-completion stream event,
 * mirroring how vLLM-Omni's client coerces `usage` and `metrics` values.
 */

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * vLLM-Omni's `coerce_positive_int_scalar`: a positive integer, or null for
 * anything missing, unparsable or ≤ 0. Zero counts are thus "absent" (a usage of 0
 * never counts as tokens: docs/design.md#per-request-metrics, and item 6 of
 * test/fixtures/golden/README.md#behaviour-these-files-pin-july-code-as-executed). Lists yield their first usable
 * item; floats truncate; decimal strings parse.
 */
export function coercePositiveInt(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const coerced = coercePositiveInt(item);
      if (coerced !== null) return coerced;
    }
    return null;
  }
  let n: number;
  if (typeof value === 'boolean') n = value ? 1 : 0;
  else if (typeof value === 'number') n = Number.isFinite(value) ? Math.trunc(value) : 0;
  else if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) n = Number.parseInt(value, 10);
  else return null;
  return n > 0 ? n : null;
}

/**
 * Output tokens a `metrics` object reports: the top-level `num_tokens_out`,
 * else the stage whose final output is text (or whose unit is a token), else
 * the largest stage count.
 */
export function outputTokensFromMetrics(metrics: Json): number | null {
  const top = coercePositiveInt(metrics.num_tokens_out);
  if (top !== null) return top;
  const stages = metrics.stage_metrics;
  if (!isObject(stages)) return null;
  let fallback: number | null = null;
  for (const info of Object.values(stages)) {
    if (!isObject(info)) continue;
    const n = coercePositiveInt(info.num_tokens_out);
    if (n === null) continue;
    if (info.final_output_type === 'text' || info.output_unit_type === 'token') return n;
    fallback = fallback === null ? n : Math.max(fallback, n);
  }
  return fallback;
}

/** The message of an in-stream `{"error": ...}` value, as vLLM-Omni stores it. */
export function streamErrorMessage(error: unknown): string {
  if (isObject(error)) {
    const message = error.message;
    if (message !== undefined && message !== null && message !== '' && message !== 0 && message !== false) {
      return typeof message === 'string' ? message : JSON.stringify(message);
    }
    return JSON.stringify(error);
  }
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** Sequential float sum, as Python's built-in `sum` does it (the order matters to the last bit). */
export function sequentialSum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
