/**
 * The per-request timeout rules the engine applies and the RunSpec form
 * checks: the default total, vLLM-Omni's legacy cap for a total ≤ 0, and
 * whether fail-fast has a timeout to trip on. Stated once, for the CLI, the
 * dashboard's form and the engine alike.
 */

/** `--omni-request-timeout-s` when not given (vLLM-Omni's default). */
export const DEFAULT_TOTAL_TIMEOUT_S = 900;
/** What a total ≤ 0 restores: vLLM's legacy 6 h cap. */
export const LEGACY_TOTAL_TIMEOUT_S = 6 * 60 * 60;

/** Timeouts in seconds as given (a flag, a RunSpec field): absent, or any number. */
interface TimeoutSettings {
  totalS?: number | null;
  firstByteS?: number | null;
  idleS?: number | null;
}

/** Effective limits in seconds; null = that kind is off. */
export interface EffectiveTimeouts {
  totalS: number;
  firstByteS: number | null;
  idleS: number | null;
}

/** The whole request's limit: undefined → 900 s; ≤ 0 → legacy 6 h (as vLLM-Omni's --omni-request-timeout-s). */
export function effectiveTotalS(totalS: number | null | undefined): number {
  if (totalS === undefined || totalS === null) return DEFAULT_TOTAL_TIMEOUT_S;
  return totalS <= 0 ? LEGACY_TOTAL_TIMEOUT_S : totalS;
}

export function effectiveTimeouts(t: TimeoutSettings): EffectiveTimeouts {
  return { totalS: effectiveTotalS(t.totalS), firstByteS: positive(t.firstByteS), idleS: positive(t.idleS) };
}

/**
 * Whether the fail-fast breaker has a timeout to trip on. A total ≤ 0
 * restores the legacy 6 h cap, which is no bound at all for a breaker; a
 * first-byte or idle timeout still is one.
 */
export function hasEffectiveTimeout(t: TimeoutSettings): boolean {
  const legacyTotal = t.totalS !== undefined && t.totalS !== null && t.totalS <= 0;
  return !legacyTotal || positive(t.firstByteS) !== null || positive(t.idleS) !== null;
}

function positive(v: number | null | undefined): number | null {
  return v !== undefined && v !== null && v > 0 ? v : null;
}
