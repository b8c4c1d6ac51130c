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

/**
 * `--extra-body`'s `realtime_tts_flow` (stallscope's key, never sent): `native` (default, upstream's newest flow)
 * or `turns` (upstream 2026-08-20's text turns on one session, for servers of that release).
 */
export function realtimeTtsFlow(c: { workload: Pick<RunConfig['workload'], 'extraBody'> }): 'native' | 'turns' {
  return c.workload.extraBody?.realtime_tts_flow === 'turns' ? 'turns' : 'native';
}
