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
import type { MetricInput, RecordList } from './input.ts';

export interface TimelinePeaks {
  maxOutputTokensPerS: number;
  maxConcurrentRequests: number;
  maxConcurrentRequestsExact: number;
}

export function timelinePeaks(records: RecordList<MetricInput>): TimelinePeaks {
  const exact = exactMaxConcurrency(records);
  // Two passes over the records rather than a list of the successful ones: the engine's
  // records are built one at a time from its columns, and a million held at once would cost more than the run.
  let minStart = Infinity;
  let maxEnd = -Infinity;
  for (const r of records) {
    if (!r.success) continue;
    minStart = Math.min(minStart, r.startTime);
    maxEnd = Math.max(maxEnd, r.startTime + r.latency);
  }
  if (minStart === Infinity)
    return { maxOutputTokensPerS: 0, maxConcurrentRequests: 0, maxConcurrentRequestsExact: exact };
  const buckets = Math.ceil(maxEnd - minStart) + 1;
  const tokens = new Float64Array(buckets);
  const concurrent = new Float64Array(buckets);
  for (const r of records) {
    if (!r.success) continue;
    // Requests with no text at all (audio only) do not seed a fake token (current upstream).
    if (r.outputTokens > 0 || r.itl.length > 0 || r.generatedText !== '') {
      let t = r.startTime + r.ttft;
      countToken(tokens, t - minStart);
      for (const gap of r.itl) countToken(tokens, (t += gap) - minStart);
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

function countToken(tokens: Float64Array, sinceStart: number): void {
  const b = Math.trunc(sinceStart);
  if (b >= 0 && b < tokens.length) tokens[b]++;
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
export function exactMaxConcurrency(records: Iterable<MetricInput>): number {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const r of records) {
    const end = r.endTime ?? (r.success ? r.startTime + r.latency : null);
    if (end === null) continue;
    starts.push(r.startTime);
    ends.push(end);
  }
  // Sorted apart and merged: at equal times an end comes before a start (intervals are [start, end)).
  const s = Float64Array.from(starts).sort();
  const e = Float64Array.from(ends).sort();
  let active = 0;
  let peak = 0;
  for (let i = 0, j = 0; i < s.length;) {
    if (j < e.length && e[j] <= s[i]) {
      active--;
      j++;
    } else {
      active++;
      i++;
      peak = Math.max(peak, active);
    }
  }
  return peak;
}
