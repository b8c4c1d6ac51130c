/**
 * The one rule for how people read the requests a stop cancelled. Their vLLM-compatible status and result key stay
 * `cancelled_after_timeout` whatever stopped the run (docs/design.md#stop-rules), but a run stopped by `errors>=3` or
 * `no_progress>=3s` had no timeout: every label a human reads — the CLI's summary, the outcome cards, the story, the
 * Runs list, Compare, the CSV — names the rule that tripped instead.
 */
import { parseStopRule, type StoppedBy } from '../config/stopRules.ts';

/** What the label needs of a trip (the stored `stopped_by`); null or absent: the fail-fast timeout or no trip. */
export type StopLike = Pick<StoppedBy, 'kind' | 'rule'> | null | undefined;

/** Whether the stop was something other than a timeout (a rule the request's own clock did not trip). */
export const stoppedByRule = (stop: StopLike): stop is Pick<StoppedBy, 'kind' | 'rule'> =>
  stop !== null && stop !== undefined && stop.kind !== 'timeouts';

/**
 * "cancelled after timeout" (the fail-fast breaker, `timeouts>=N`, or no trip known), "stopped: no progress for 3 s",
 * or "stopped by errors>=3".
 */
export function stopCancelLabel(stop: StopLike): string {
  if (!stoppedByRule(stop)) return 'cancelled after timeout';
  if (stop.kind === 'no_progress') {
    try {
      const r = parseStopRule(stop.rule);
      if (r.kind === 'no_progress') return `stopped: no progress for ${r.seconds} s`;
    } catch {
      // A stored rule that no longer parses is still named as it was written.
    }
  }
  return `stopped by ${stop.rule}`;
}

/** The label's hover text: what happened to these requests, the status key they keep. */
export function stopCancelTitle(stop: StopLike): string {
  return stoppedByRule(stop)
    ? `cancelled when the stop rule ${stop.rule} stopped the run, in flight or queued (status cancelled_after_timeout: no timeout fired)`
    : 'cancelled when the breaker tripped on a timeout, in flight or queued';
}
