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
import type { MetricInput, ReadonlyNumbers, RecordList } from './input.ts';
import { Floats } from './floats.ts';

export interface TimelinePeaks {
  maxOutputTokensPerS: number;
  maxConcurrentRequests: number;
  maxConcurrentRequestsExact: number;
}

/**
 * What the peaks read of a run, gathered in one pass over its records (the
 * aggregates' own pass, calculate.ts): a few numbers a request rather than
 * the records themselves — the engine builds each record from its columns
 * on every read, and reading them three times more cost more than the rest
 * of the metrics (docs/design.md#request-table).
 */
export class TimelineInput {
  /** Per successful request, in order: its start, ttft and e2el, and whether it seeds tokens. */
  private readonly starts: number[] = [];
  private readonly ttfts: number[] = [];
  private readonly latencies: number[] = [];
  private readonly hasText: boolean[] = [];
  /** Where each successful request's ITLs end in `itls`. */
  private readonly itlEnds: number[] = [];
  /** Every request with a known end: the interval it held a slot. */
  private readonly spanStarts: number[] = [];
  private readonly spanEnds: number[] = [];

  /**
   * `itls`: where every successful request's ITLs are appended, one after another, as they are added (the
   * aggregates pass their ITL samples: collected once, read by both).
   */
  constructor(private readonly itls = new Floats()) {}

  add(r: MetricInput): void {
    const end = endOf(r);
    if (end !== null) {
      this.spanStarts.push(r.startTime);
      this.spanEnds.push(end);
    }
    if (!r.success) return;
    this.itls.pushAll(r.itl);
    this.starts.push(r.startTime);
    this.ttfts.push(r.ttft);
    this.latencies.push(r.latency);
    // Requests with no text at all (audio only) do not seed a fake token (current upstream).
    this.hasText.push(r.outputTokens > 0 || r.itl.length > 0 || r.generatedText !== '');
    this.itlEnds.push(this.itls.length);
  }

  peaks(): TimelinePeaks {
    const exact = sweepMax(this.spanStarts, this.spanEnds);
    const { starts, latencies } = this;
    let minStart = Infinity;
    let maxEnd = -Infinity;
    for (let k = 0; k < starts.length; k++) {
      minStart = Math.min(minStart, starts[k]);
      maxEnd = Math.max(maxEnd, starts[k] + latencies[k]);
    }
    if (minStart === Infinity)
      return { maxOutputTokensPerS: 0, maxConcurrentRequests: 0, maxConcurrentRequestsExact: exact };
    const buckets = Math.ceil(maxEnd - minStart) + 1;
    const tokens = new Float64Array(buckets);
    const concurrent = new Float64Array(buckets);
    const itls = this.itls.view();
    const { itlEnds } = this;
    for (let k = 0; k < starts.length; k++) {
      if (this.hasText[k]) {
        let t = starts[k] + this.ttfts[k];
        countToken(tokens, t - minStart);
        for (let j = k === 0 ? 0 : itlEnds[k - 1]; j < itlEnds[k]; j++) countToken(tokens, (t += itls[j]) - minStart);
      }
      const first = Math.trunc(starts[k] - minStart);
      const last = Math.trunc(starts[k] + latencies[k] - minStart);
      for (let s = first; s <= last && s < buckets; s++) concurrent[s]++;
    }
    return {
      maxOutputTokensPerS: peakOf(tokens),
      maxConcurrentRequests: peakOf(concurrent),
      maxConcurrentRequestsExact: exact,
    };
  }
}

export function timelinePeaks(records: RecordList<MetricInput>): TimelinePeaks {
  const input = new TimelineInput();
  for (let i = 0; i < records.length; i++) input.add(records.at(i)!);
  return input.peaks();
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
 * for a completed one; a failed record without an end time (unsent, or
 * imported) is left out.
 */
export function exactMaxConcurrency(records: Iterable<MetricInput>): number {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const r of records) {
    const end = endOf(r);
    if (end === null) continue;
    starts.push(r.startTime);
    ends.push(end);
  }
  return sweepMax(starts, ends);
}

/** When a request stopped holding its slot, or null when that is not known (unsent, or imported). */
function endOf(r: MetricInput): number | null {
  return r.endTime ?? (r.success ? r.startTime + r.latency : null);
}

/** The sweep: starts and ends sorted apart and merged; at equal times an end comes before a start. */
function sweepMax(starts: ReadonlyNumbers, ends: ReadonlyNumbers): number {
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
