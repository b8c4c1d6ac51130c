/**
 * A duplex turn's trigger, read from the run's extra body. The realtime
 * backends' refusals (docs/design.md#realtime) are the one validator's
 * (shared/config/runConfigIssues.ts).
 */
import type { RunConfig } from '../../../shared/config/runConfig.ts';

/** `--extra-body`'s `realtime_trigger` (vLLM-Omni's name): how a duplex turn ends its input. */
export function realtimeTrigger(c: { workload: Pick<RunConfig['workload'], 'extraBody'> }): 'explicit' | 'vad' {
  const t = c.workload.extraBody?.realtime_trigger ?? 'explicit';
  return t === 'vad' ? 'vad' : 'explicit';
}
