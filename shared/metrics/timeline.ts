/**
 * Peak figures over time. vLLM-Omni counts in whole-second buckets from the
 * earliest successful start: a request counts in every second from its start
 * bucket to its end bucket (both included), a token in the bucket of its time
 * (start + ttft + cumulative itl). Back-to-back requests at concurrency 1
 * therefore report 2 — the golden fixtures pin that — so we also give an
 * exact sweep-line maximum as our own key. vLLM counts only successful
 * requests, so a run where nothing completed (a hang) reports 0; the exact
 * sweep counts every request that was sent, over the time it really held a
 * slot (until it completed, failed, timed out or was cancelled).
 */
import type { MetricInput } from './input.ts';

export interface TimelinePeaks {
  maxOutputTokensPerS: number;
  maxConcurrentRequests: number;
  maxConcurrentRequestsExact: number;
}

export function timelinePeaks(records: readonly MetricInput[]): TimelinePeaks {
  const ok = records.filter((r) => r.success);
  const exact = exactMaxConcurrency(records);
  if (ok.length === 0) return { maxOutputTokensPerS: 0, maxConcurrentRequests: 0, maxConcurrentRequestsExact: exact };
  let minStart = Infinity;
  let maxEnd = -Infinity;
  for (const r of ok) {
    minStart = Math.min(minStart, r.startTime);
    maxEnd = Math.max(maxEnd, r.startTime + r.latency);
  }
  const buckets = Math.ceil(maxEnd - minStart) + 1;
  const tokens = new Float64Array(buckets);
  const concurrent = new Float64Array(buckets);
  for (const r of ok) {
    // Requests with no text at all (audio only) do not seed a fake token (current upstream).
    if (r.outputTokens > 0 || r.itl.length > 0 || r.generatedText !== '') {
      let t = r.startTime + r.ttft;
      const times = [t];
      for (const gap of r.itl) times.push((t += gap));
      for (const time of times) {
        const b = Math.trunc(time - minStart);
        if (b >= 0 && b < buckets) tokens[b]++;
      }
    }
    const first = Math.trunc(r.startTime - minStart);
    const last = Math.trunc(r.startTime + r.latency - minStart);
    for (let s = first; s <= last && s < buckets; s++) concurrent[s]++;
  }
  return {
    maxOutputTokensPerS: peakOf(tokens),
    maxConcurrentRequests: peakOf(concurrent),
    maxConcurrentRequestsExact: exact,
  };
}

/** Largest element; a loop, because spreading a long run's buckets into Math.max could overflow the stack. */
function peakOf(values: Float64Array): number {
  let peak = 0;
  for (const v of values) if (v > peak) peak = v;
  return peak;
}

/**
 * Most requests in flight at one instant; intervals are [start, end), so a
 * request ending as another starts does not overlap it. A request counts from
 * its send to its end: `endTime` when known (any outcome), else start + e2el
 * for a completed one; a failed record without an end time (never sent, or
 * imported) is left out.
 */
export function exactMaxConcurrency(records: readonly MetricInput[]): number {
  const events: [number, number][] = [];
  for (const r of records) {
    const end = r.endTime ?? (r.success ? r.startTime + r.latency : null);
    if (end === null) continue;
    events.push([r.startTime, 1], [end, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let active = 0;
  let peak = 0;
  for (const [, delta] of events) {
    active += delta;
    peak = Math.max(peak, active);
  }
  return peak;
}
