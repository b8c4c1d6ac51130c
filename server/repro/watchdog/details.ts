/**
 * Phase details are small and bounded: they travel through a fixed-size
 * shared buffer and into every stall report, so a runaway value can neither
 * overflow the buffer nor bloat telemetry.
 */
import type { PhaseDetails } from '../../../shared/types.ts';
import { asText } from '../../../shared/text.ts';

export const MAX_DETAIL_KEYS = 16;
export const MAX_DETAIL_STRING = 120;
export const MAX_DETAIL_BYTES = 1024;

/** Keeps the first 16 keys, truncates strings, and drops keys once the JSON would pass 1 KiB. */
export function boundDetails(details: Record<string, unknown>): PhaseDetails {
  const out: PhaseDetails = {};
  let size = 2;
  let keys = 0;
  for (const [rawKey, raw] of Object.entries(details)) {
    if (keys >= MAX_DETAIL_KEYS) break;
    const key = rawKey.slice(0, 40);
    let value: string | number | boolean | null;
    if (raw === null || typeof raw === 'boolean') value = raw;
    else if (typeof raw === 'number') value = Number.isFinite(raw) ? raw : String(raw);
    else value = asText(raw);
    if (typeof value === 'string' && value.length > MAX_DETAIL_STRING)
      value = `${value.slice(0, MAX_DETAIL_STRING - 1)}…`;
    const cost = JSON.stringify(key).length + JSON.stringify(value).length + 2;
    if (size + cost > MAX_DETAIL_BYTES) break;
    size += cost;
    out[key] = value;
    keys++;
  }
  return out;
}
