/**
 * The aggregate metrics of a run, as vLLM-Omni's `calculate_metrics` computes
 * them (current upstream, docs/design.md#aggregates), keyed as its result JSON keys
 * them. Distributions use successful requests only; `failed` counts every
 * other record passed in (so the engine passes placeholders for timed-out,
 * cancelled and unsent requests and `completed + failed` = the run size).
 *
 * Never NaN: a metric without samples gets no mean/median/p keys (its
 * `num_*_samples` says 0) — except e2el, audio_duration and audio_underrun,
 * which upstream writes as 0.0 — and a zero duration gives zero throughputs.
 */
import {
  GOODPUT_METRICS,
  METRIC_SUFFIX,
  PERCENTILE_METRICS,
  SAMPLE_COUNT_METRICS,
  type GoodputMetric,
  type MetricInput,
  type MetricOptions,
  type PercentileMetric,
  type RecordList,
} from './input.ts';
import { writeStatKeys } from './stats.ts';
import { TimelineInput } from './timeline.ts';
import { Floats } from './floats.ts';

/**
 * Output length of one request as the aggregates count it: the server's
 * token count; for a success without one, 0 when it produced no text but some
 * audio (current upstream), else 1 (upstream's no-tokenizer placeholder);
 * 0 for a failed request.
 */
export function outputLength(r: MetricInput): number {
  if (!r.success) return 0;
  if (r.outputTokens) return r.outputTokens;
  if (r.generatedText === '' && (r.audioDuration > 0 || r.audioFrames > 0)) return 0;
  return 1;
}

/** Per-request TPOT in seconds, or null when it is not measurable (output ≤ 1 token, no positive interval). */
export function requestTpot(r: MetricInput, outputLen: number): number | null {
  if (outputLen <= 1) return null;
  if (r.itl.length > 0) {
    const itl = r.itl;
    let sum = 0;
    for (let i = 0; i < itl.length; i++) sum += itl[i]; // Python's sequential sum(), as upstream does it
    const tpot = sum / itl.length;
    return Number.isFinite(tpot) && tpot > 0 ? tpot : null;
  }
  if (Number.isFinite(r.textLatency) && Number.isFinite(r.ttft) && r.textLatency > r.ttft && r.ttft > 0) {
    return (r.textLatency - r.ttft) / (outputLen - 1);
  }
  return null;
}

type Samples = Record<PercentileMetric, Floats>;

/** The statistics upstream writes as 0.0 without samples (vLLM-Omni metrics.py @ 0f3921628a0f, patch.py's result). */
const ZERO_WHEN_EMPTY: ReadonlySet<PercentileMetric> = new Set(['e2el', 'audio_duration', 'audio_underrun']);

export function calculateMetrics(records: RecordList<MetricInput>, opts: MetricOptions): Record<string, number> {
  const samples: Samples = {
    ttft: new Floats(),
    tpot: new Floats(),
    itl: new Floats(),
    e2el: new Floats(),
    audio_ttfp: new Floats(),
    audio_rtf: new Floats(),
    audio_duration: new Floats(),
    audio_underrun: new Floats(),
  };
  let completed = 0;
  let totalInput = 0;
  let totalOutput = 0;
  let totalAudioDuration = 0;
  let totalAudioFrames = 0;
  const slo = goodputSlos(opts.goodput);
  let good = 0;
  // One pass, by index: the engine's table builds a record on every read (records/requestTable.ts).
  // The timeline collects the ITL samples as it goes.
  const timeline = new TimelineInput(samples.itl);
  for (let i = 0; i < records.length; i++) {
    const r = records.at(i)!;
    timeline.add(r);
    if (!r.success) continue;
    completed++;
    const outputLen = outputLength(r);
    totalOutput += outputLen;
    totalInput += r.promptLen;
    const tpot = requestTpot(r, outputLen);
    if (tpot !== null) samples.tpot.push(tpot);
    // vLLM counts a request's tpot as 0 when it has none (output ≤ 1 token).
    if (
      slo &&
      (slo.ttft === undefined || r.ttft <= slo.ttft) &&
      (slo.tpot === undefined || (tpot ?? 0) <= slo.tpot) &&
      (slo.e2el === undefined || r.latency <= slo.e2el)
    )
      good++;
    samples.ttft.push(r.ttft);
    samples.e2el.push(r.latency);
    samples.audio_ttfp.push(r.audioTtfp);
    samples.audio_rtf.push(r.audioRtf);
    samples.audio_duration.push(r.audioDuration);
    samples.audio_underrun.push(r.audioUnderrunS ?? 0);
    totalAudioDuration += r.audioDuration;
    totalAudioFrames += r.audioFrames;
  }
  const dur = opts.durationS;
  const per = (x: number): number => (dur > 0 ? x / dur : 0);
  const peaks = timeline.peaks();
  const out: Record<string, number> = {
    duration: dur,
    completed,
    failed: records.length - completed,
    total_input_tokens: totalInput,
    total_output_tokens: totalOutput,
    request_throughput: per(completed),
    output_throughput: per(totalOutput),
    total_token_throughput: per(totalInput + totalOutput),
    total_audio_duration_s: totalAudioDuration,
    total_audio_frames: totalAudioFrames,
    audio_throughput: per(totalAudioDuration),
    total_images: 0,
    image_throughput: 0,
    average_pixels_per_image: 0,
    mean_denoise_step_latency_ms: 0,
    max_output_tokens_per_s: peaks.maxOutputTokensPerS,
    max_concurrent_requests: peaks.maxConcurrentRequests,
    max_concurrent_requests_exact: peaks.maxConcurrentRequestsExact,
    rtfx: 0,
  };
  if (slo) out.request_goodput = per(good);
  for (const m of SAMPLE_COUNT_METRICS) out[`num_${m}_samples`] = samples[m].length;
  const selected = new Set(opts.percentileMetrics);
  for (const m of PERCENTILE_METRICS) {
    if (!selected.has(m)) continue;
    if (samples[m].length === 0) {
      // Upstream gates only ttft/tpot/itl/audio_ttfp/audio_rtf on their sample counts (has_metric_samples); the
      // others are `np.mean(values or 0)`: an all-failed run writes them as 0.0.
      if (ZERO_WHEN_EMPTY.has(m)) writeStats(out, m, new Float64Array(1), opts.metricPercentiles);
      continue;
    }
    // Text latency statistics are meaningless when no text token was produced (upstream skips them too).
    if ((m === 'ttft' || m === 'tpot' || m === 'itl') && totalOutput === 0) continue;
    writeStats(out, m, samples[m].view(), opts.metricPercentiles);
  }
  return out;
}

/**
 * The SLOs in seconds, as vLLM compares them (`slo_ms / 1000 >= value`), or
 * null without --goodput. A request is good when it meets every given SLO.
 */
function goodputSlos(ms: MetricOptions['goodput']): Partial<Record<GoodputMetric, number>> | null {
  if (!ms || Object.keys(ms).length === 0) return null;
  const s: Partial<Record<GoodputMetric, number>> = {};
  for (const m of GOODPUT_METRICS) if (ms[m] !== undefined) s[m] = ms[m] / 1000;
  return s;
}

function writeStats(
  out: Record<string, number>,
  m: PercentileMetric,
  values: Float64Array,
  percentiles: readonly number[],
): void {
  const suffix = METRIC_SUFFIX[m];
  writeStatKeys(out, `${m}${suffix}`, values, percentiles, suffix === '_ms' ? 1000 : 1);
}
