/**
 * The console summary: vLLM-Omni's `print_metrics` block, byte for byte
 * (people grep it in CI logs; checked against a golden console capture),
 * followed by stallscope's Fail-fast block with the counts and the verdict.
 * Built from the result JSON so the console and the file can never disagree.
 */
import { stopCancelLabel, stoppedByRule } from '../../../shared/requests/stopLabel.ts';
import {
  METRIC_SUFFIX,
  PERCENTILE_METRICS,
  percentileLabel,
  METRIC_TITLES,
  RESULT_LABELS,
  SEED_TTS_LABELS,
  SEED_TTS_TITLE,
  type LabelledKey,
  type PercentileMetric,
} from '../../../shared/metrics/index.ts';
import { tripEvidenceText } from '../../../shared/config/stopRules.ts';
import { stoppedByFromJson } from '../../../shared/vllmResult/resultJson.ts';
import { belowPythonLines, type GpuAtStall, type KernelLogAtStall } from '../../../shared/stalls/gpuState.ts';
import { centre, fixed2, percent2, row } from './pyFormat.ts';

export interface SummaryExtras {
  /** `--percentile-metrics`, e.g. `['ttft','tpot','itl','e2el','audio_ttfp','audio_rtf']`. */
  percentileMetrics: readonly string[];
  /** `--metric-percentiles`, e.g. `[99]`. */
  metricPercentiles: readonly number[];
}

/** A result key's shared label, with the colon vLLM prints after it. */
const label = (key: LabelledKey): string => `${RESULT_LABELS[key]}:`;

const num = (result: Record<string, unknown>, key: string): number => {
  const v = result[key];
  return typeof v === 'number' ? v : 0;
};

/** One metric's block; nothing when the result has no statistics for it (no samples). */
function metricBlock(
  lines: string[],
  result: Record<string, unknown>,
  m: PercentileMetric,
  percentiles: readonly number[],
): void {
  const suffix = METRIC_SUFFIX[m];
  if (typeof result[`mean_${m}${suffix}`] !== 'number') return;
  const unit = suffix === '_ms' ? ' (ms)' : suffix === '_s' ? ' (s)' : '';
  const name = m.toUpperCase();
  lines.push(centre(METRIC_TITLES[m], '-'));
  lines.push(row(`Mean ${name}${unit}:`, fixed2(num(result, `mean_${m}${suffix}`))));
  lines.push(row(`Median ${name}${unit}:`, fixed2(num(result, `median_${m}${suffix}`))));
  for (const p of percentiles) {
    const key = `p${percentileLabel(p)}_${m}${suffix}`;
    if (typeof result[key] === 'number') lines.push(row(`P${percentileLabel(p)} ${name}${unit}:`, fixed2(result[key])));
  }
}

/**
 * What the result itself says was selected: every metric with a mean key, and
 * every percentile label found on any metric's `p{P}_` keys (in key order).
 */
export function extrasFromResult(result: Record<string, unknown>): SummaryExtras {
  const percentileMetrics = PERCENTILE_METRICS.filter(
    (m) => typeof result[`mean_${m}${METRIC_SUFFIX[m]}`] === 'number',
  );
  const labels: string[] = [];
  for (const key of Object.keys(result)) {
    const m =
      /^p(\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|audio_ttfp|audio_rtf|audio_duration|audio_underrun)(_ms|_s)?$/.exec(key);
    if (m && !labels.includes(m[1])) labels.push(m[1]);
  }
  return { percentileMetrics, metricPercentiles: labels.map(Number) };
}

/** The summary; `extras` default to what the result's keys show (see extrasFromResult). */
export function formatSummary(
  result: Record<string, unknown>,
  extras: SummaryExtras = extrasFromResult(result),
): string {
  const selected = new Set(extras.percentileMetrics);
  const pcts = extras.metricPercentiles;
  const lines: string[] = [];
  lines.push(centre(' Serving Benchmark Result ', '='));
  lines.push(row(label('completed'), String(num(result, 'completed'))));
  lines.push(row(label('failed'), String(num(result, 'failed'))));
  if (typeof result.max_concurrency === 'number')
    lines.push(row(label('max_concurrency'), String(result.max_concurrency)));
  if (typeof result.request_rate === 'number') lines.push(row(label('request_rate'), fixed2(result.request_rate)));
  lines.push(row(label('duration'), fixed2(num(result, 'duration'))));
  lines.push(row(label('request_throughput'), fixed2(num(result, 'request_throughput'))));
  if (typeof result.request_goodput === 'number')
    lines.push(row(label('request_goodput'), fixed2(result.request_goodput)));
  lines.push(row(label('max_concurrent_requests'), fixed2(num(result, 'max_concurrent_requests'))));
  if (selected.has('e2el')) metricBlock(lines, result, 'e2el', pcts);

  lines.push(centre(' Text Result ', '='));
  lines.push(row(label('total_input_tokens'), String(num(result, 'total_input_tokens'))));
  lines.push(row(label('total_output_tokens'), String(num(result, 'total_output_tokens'))));
  lines.push(row(label('output_throughput'), fixed2(num(result, 'output_throughput'))));
  lines.push(row(label('max_output_tokens_per_s'), fixed2(num(result, 'max_output_tokens_per_s'))));
  lines.push(row(label('max_concurrent_requests'), fixed2(num(result, 'max_concurrent_requests'))));
  lines.push(row(label('total_token_throughput'), fixed2(num(result, 'total_token_throughput'))));
  if (num(result, 'total_output_tokens') > 0) {
    for (const m of ['ttft', 'tpot', 'itl'] as const) if (selected.has(m)) metricBlock(lines, result, m, pcts);
  }

  if (num(result, 'total_audio_duration_s') > 0 || num(result, 'total_audio_frames') > 0) {
    lines.push(centre(' Audio Result ', '='));
    lines.push(row(label('total_audio_duration_s'), fixed2(num(result, 'total_audio_duration_s'))));
    lines.push(row(label('total_audio_frames'), String(num(result, 'total_audio_frames'))));
    lines.push(row(label('audio_throughput'), fixed2(num(result, 'audio_throughput'))));
    // A PCM stream's continuity check writes its rate (docs/design.md#speech-metrics); a chat stream has none and,
    // as in vLLM-Omni's chat client, every request counts as continuous.
    const okRate = typeof result.audio_continuity_ok_rate === 'number' ? result.audio_continuity_ok_rate : 1;
    lines.push(row('Streaming continuity OK rate:', percent2(okRate)));
    for (const m of extras.percentileMetrics) {
      if (m.startsWith('audio') && (PERCENTILE_METRICS as readonly string[]).includes(m))
        metricBlock(lines, result, m as PercentileMetric, pcts);
    }
  }
  lines.push('='.repeat(50));
  lines.push(...seedTtsBlock(result));
  lines.push(...failFastBlock(result));
  lines.push(...livenessBlock(result));
  lines.push(...belowPythonBlock(result));
  return `${lines.join('\n')}\n`;
}

/** vLLM-Omni's `print_seed_tts_wer_summary` block, when the run was evaluated. */
function seedTtsBlock(result: Record<string, unknown>): string[] {
  if (result.seed_tts_eval_protocol === undefined) return [];
  const lines = [centre(` ${SEED_TTS_TITLE} `, '=')];
  for (const [key, label] of Object.entries(SEED_TTS_LABELS)) {
    const v = result[key];
    if (key.includes('error')) {
      if (typeof v === 'number') lines.push(row(`${label}:`, v.toFixed(4)));
    } else lines.push(row(`${label}:`, String(num(result, key))));
  }
  lines.push('='.repeat(50));
  return lines;
}

/** `liveness_at_stall` (docs/design.md#liveness-at-stall): the sentence, then each question and how it went. */
function livenessBlock(result: Record<string, unknown>): string[] {
  const l = result.liveness_at_stall as Record<string, unknown> | undefined;
  if (!l || typeof l !== 'object') return [];
  const lines = [centre(' Liveness at the stall ', '=')];
  if (typeof l.summary === 'string') lines.push(l.summary);
  for (const p of Array.isArray(l.probes) ? (l.probes as Record<string, unknown>[]) : []) {
    const ms = typeof p.ms === 'number' ? `${Math.round(p.ms)} ms` : '?';
    const how = p.outcome === 'answered' ? `answered ${String(p.status)} in ${ms}` : `${String(p.outcome)} after ${ms}`;
    const error = typeof p.error === 'string' ? ` (${p.error})` : '';
    lines.push(row(`${String(p.method)} ${String(p.path)}:`, `${how}${error}`));
  }
  lines.push('='.repeat(50));
  return lines;
}

/** `gpu_at_stall` and `kernel_log_at_stall` (docs/design.md#below-python): each device, then the kernel's lines. */
function belowPythonBlock(result: Record<string, unknown>): string[] {
  const g = result.gpu_at_stall as GpuAtStall | null | undefined;
  const k = result.kernel_log_at_stall as KernelLogAtStall | null | undefined;
  if (!g && !k) return [];
  return [
    centre(' Below Python at the stall ', '='),
    ...belowPythonLines(g ?? undefined, k ?? undefined),
    '='.repeat(50),
  ];
}

/** Our block: the breaker, the partial-run counts and the verdict with its reasons. */
function failFastBlock(result: Record<string, unknown>): string[] {
  const yes = (v: unknown): string => (v === true ? 'yes' : 'no');
  const lines = [centre(' Fail-fast ', '=')];
  lines.push(row('Fail-fast enabled:', yes(result.fail_fast_enabled)));
  lines.push(row('Breaker tripped:', yes(result.fail_fast_tripped)));
  const cause = result.fail_fast_cause as Record<string, unknown> | null | undefined;
  if (cause) {
    const elapsed = typeof cause.elapsed_s === 'number' ? `${fixed2(cause.elapsed_s)} s` : '?';
    const phase = typeof cause.last_phase === 'string' ? `, last phase ${cause.last_phase}` : '';
    lines.push(
      row(
        'Cause:',
        `request ${String(cause.request_index)} (${String(cause.request_id)}): ${String(cause.kind)} timeout after ${elapsed}${phase}`,
      ),
    );
  }
  if (Array.isArray(result.stop_on) && result.stop_on.length)
    lines.push(row('Stop rules:', (result.stop_on as unknown[]).map(String).join(', ')));
  const stop = stoppedByFromJson(result.stopped_by);
  if (stop) lines.push(row('Stopped by:', `${stop.rule} at ${fixed2(stop.atS)} s: ${tripEvidenceText(stop)}`));
  lines.push(row(label('timed_out_requests'), String(num(result, 'timed_out_requests'))));
  // The key stays vLLM's; its label names the rule when the stop was not a timeout (shared/requests/stopLabel.ts).
  const cancelledLabel = stoppedByRule(stop)
    ? `Cancelled, ${stopCancelLabel(stop)}:`
    : label('cancelled_after_timeout_requests');
  lines.push(row(cancelledLabel, String(num(result, 'cancelled_after_timeout_requests'))));
  lines.push(row(label('not_dispatched_requests'), String(num(result, 'not_dispatched_requests'))));
  // Keys of the bounded stop (docs/design.md#bounded-stop): shown only when they say something.
  if (num(result, 'cancelled_requests') > 0)
    lines.push(row(label('cancelled_requests'), String(num(result, 'cancelled_requests'))));
  if (num(result, 'cleanup_forced_sockets') > 0)
    lines.push(row(label('cleanup_forced_sockets'), String(num(result, 'cleanup_forced_sockets'))));
  lines.push(row('Verdict:', typeof result.verdict === 'string' ? result.verdict : 'unknown'));
  const reasons = Array.isArray(result.verdict_reasons) ? (result.verdict_reasons as unknown[]) : [];
  for (const reason of reasons) lines.push(`  - ${String(reason)}`);
  lines.push('='.repeat(50));
  return lines;
}
