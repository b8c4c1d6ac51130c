/**
 * The Seed-TTS gate as the run page shows it, pure: the mean and median WER
 * against the run's bounds (its `--threshold`s on seed_tts_* keys), the
 * evaluated and excluded counts, and the per-utterance WER histogram. Final
 * values come from the run's summary (the result keys); while the gate is
 * still transcribing they are derived from the `accuracy.item` events.
 */
import { compare, parseThreshold, type Threshold } from '../../shared/runInfo/verdict.ts';
import type { RequestView, RunAccuracy } from '../../shared/runView/runModel.ts';

export interface GateBound extends Threshold {
  /** Whether the bound holds for the current value; null while the value is unknown. */
  holds: boolean | null;
}

export interface GateView {
  done: number;
  total: number;
  asrModel: string;
  evaluated: number;
  requestFailed: number;
  noAudio: number;
  asrFailed: number;
  mean: number | null;
  median: number | null;
  bounds: GateBound[];
  /** True once the run's summary carries the gate's keys (the values are the result's). */
  final: boolean;
}

type Metrics = Record<string, number | string | null | undefined>;

const num = (m: Metrics, k: string): number | null => {
  const x = m[k];
  return typeof x === 'number' ? x : null;
};

export function werValues(rows: readonly RequestView[]): number[] {
  const out: number[] = [];
  for (const r of rows) if (r.accuracy && r.accuracy.wer !== null) out.push(r.accuracy.wer);
  return out;
}

function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function gateView(
  acc: RunAccuracy | null,
  rows: readonly RequestView[],
  summaryMetrics: Metrics | null,
): GateView | null {
  const m = summaryMetrics ?? {};
  const final = m.seed_tts_eval_protocol !== undefined;
  if (!acc && !final) return null;
  let view: Omit<GateView, 'bounds'>;
  if (final) {
    view = {
      done: acc?.done ?? num(m, 'seed_tts_content_evaluated') ?? 0,
      total: acc?.total ?? 0,
      asrModel: acc?.asrModel ?? '',
      evaluated: num(m, 'seed_tts_content_evaluated') ?? 0,
      requestFailed: num(m, 'seed_tts_request_failed') ?? 0,
      noAudio: num(m, 'seed_tts_no_pcm') ?? 0,
      asrFailed: num(m, 'seed_tts_asr_failed') ?? 0,
      mean: num(m, 'seed_tts_content_error_mean'),
      median: num(m, 'seed_tts_content_error_median'),
      final,
    };
  } else {
    const wers = werValues(rows);
    const errs = (kinds: string[]) => rows.filter((r) => r.accuracy?.error && kinds.includes(r.accuracy.error)).length;
    view = {
      done: acc!.done,
      total: acc!.total,
      asrModel: acc!.asrModel,
      evaluated: wers.length,
      requestFailed: errs(['request_failed']),
      noAudio: errs(['no_pcm']),
      asrFailed: errs(['empty_audio', 'asr_exception', 'empty_asr', 'wer_compute_failed']),
      mean: mean(wers),
      median: median(wers),
      final,
    };
  }
  const value = (key: string): number | null =>
    key === 'seed_tts_content_error_mean'
      ? view.mean
      : key === 'seed_tts_content_error_median'
        ? view.median
        : key === 'seed_tts_content_evaluated'
          ? view.evaluated
          : num(m, key);
  const bounds: GateBound[] = [];
  for (const expr of acc?.bounds ?? []) {
    try {
      const t = parseThreshold(expr);
      const v = value(t.key);
      bounds.push({ ...t, holds: v === null ? (final ? false : null) : compare(v, t.op, t.value) });
    } catch {
      // Refused before the run started; nothing to show.
    }
  }
  return { ...view, bounds };
}

export interface WerBin {
  label: string;
  count: number;
}

/** Per-utterance WER in tenths from 0 to 1, then one bin for WER > 1 (insertions can exceed 1). */
export function werHistogram(values: readonly number[]): WerBin[] {
  if (values.length === 0) return [];
  const bins: WerBin[] = Array.from({ length: 10 }, (_, i) => ({
    label: `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`,
    count: 0,
  }));
  bins[0].label = '0–0.1';
  const over = { label: '> 1', count: 0 };
  for (const v of values) {
    if (v > 1) over.count++;
    else bins[Math.min(9, Math.floor(v * 10))].count++;
  }
  return over.count > 0 ? [...bins, over] : bins;
}
