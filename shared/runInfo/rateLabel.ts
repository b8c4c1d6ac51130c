/**
 * How a run's arrival rate is shown in the runs list and the run header:
 * the rate (`inf`, `5`) or, with ramp-up, `linear 1→20` — a ramp-up run's
 * request rate is `inf` only because vLLM requires it to be.
 */
import { asText } from '../text.ts';

export function rateLabel(requestRate: unknown, rampUp?: unknown): string | null {
  const r = rampUp as { strategy?: unknown; startRps?: unknown; endRps?: unknown } | undefined;
  if (r && typeof r.strategy === 'string') return `${r.strategy} ${String(r.startRps)}→${String(r.endRps)}`;
  return requestRate === undefined || requestRate === null ? null : asText(requestRate);
}
