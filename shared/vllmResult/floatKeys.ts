/**
 * Which result keys vLLM writes as Python floats. JSON numbers in JS carry no
 * int/float distinction, so a whole-valued float (`burstiness` 1) would be
 * written `1` where vLLM's `json.dump` writes `1.0`; tools that diff result
 * files or check types (jq `type`, pandas dtypes, schema validators) see the
 * difference. The kinds follow vLLM-Omni's `MultiModalsBenchmarkMetrics`
 * fields and `benchmark()` result dict (docs/design.md#result-json), checked key by
 * key against the real files in test/fixtures/vllm-results.
 */

/**
 * - `float`: a float scalar;
 * - `floats`: a list of floats (`ttfts`, `start_times`; null entries allowed);
 * - `floatRows`: a list of lists of floats (`itls`);
 * - `intUnlessZero`: an int, except that a run with none writes the float default `0.0`
 *   (`total_audio_frames`: `int` when frames were counted, the dataclass default `0.0` in
 *   a text-only run, as the real files show);
 * - an object: the kinds of its keys (of each element's keys, for a list of objects); its `'*'` entry is the
 *   kind of any key it does not name (a map keyed by stage id).
 */
export type FloatKind = 'float' | 'floats' | 'floatRows' | 'intUnlessZero' | { readonly [key: string]: FloatKind };

const FLOAT_SCALARS = new Set([
  'request_rate', // argparse type=float; the string "inf" stays a string
  'burstiness',
  'duration',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'total_audio_duration_s',
  'audio_throughput',
  'image_throughput',
  'average_pixels_per_image',
  'mean_denoise_step_latency_ms',
  'max_output_tokens_per_s',
  'rtfx',
  'audio_continuity_ok_rate',
]);

/** `mean_ttft_ms`, `median_audio_rtf`, `std_itl_ms`, `p99_e2el_ms`, `p99.9_tpot_ms`, … */
const STATISTIC = /^(mean|median|std|p\d+(\.\d+)?)_/;
/** The Seed-TTS gate's `statistics.fmean` / `median` of WERs (and of SIM, UTMOS): `seed_tts_content_error_mean`. */
const SEED_TTS_STATISTIC = /^seed_tts_.*_(mean|median)$/;

const NESTED: Record<string, FloatKind> = {
  start_times: 'floats',
  ttfts: 'floats',
  itls: 'floatRows',
  total_audio_frames: 'intUnlessZero',
  // openai-audio-speech with --save-detailed: each request's worst underrun (MixRequestFuncOutput's float).
  audio_underrun_s: 'floats',
  // stallscope's own key: seconds from the request's start to the timeout.
  fail_fast_cause: { elapsed_s: 'float' },
  // stallscope's own: seconds on the run clock when a stop rule tripped.
  stopped_by: { at_s: 'float' },
  // one row per utterance; `wer` is a float (jiwer)
  seed_tts_wer_eval_items: { wer: 'float' },
  // The realtime backends' per-turn metrics: ms from `round(seconds * 1000, 3)`, an RTF from `round(x, 6)`.
  duplex_request_metrics: {
    ttft_ms: 'float',
    ttfp_ms: 'float',
    audio_generation_ms: 'float',
    audio_duration_ms: 'float',
    rtf: 'float',
  },
  // Per request, stage id → the kept stage fields (requestStageMetrics.ts): the engine's audio duration is a float.
  request_stage_metrics: { '*': { audio_duration_s: 'float' } },
  duplex_session_metrics: {
    ttft_ms: { mean: 'float', p50: 'float', p99: 'float' },
    ttfp_ms: { mean: 'float', p50: 'float', p99: 'float' },
    rtf: { mean: 'float', p50: 'float', p99: 'float' },
  },
};

/** The kind of a top-level result key, or undefined when its numbers are ints. */
export function resultFloatKind(key: string): FloatKind | undefined {
  if (FLOAT_SCALARS.has(key) || STATISTIC.test(key) || SEED_TTS_STATISTIC.test(key)) return 'float';
  return NESTED[key];
}

/** Sums upstream takes over successful requests' values only: `sum([])` of a run with none is the int 0. */
const SUMS_OF_COMPLETED = new Set(['total_audio_duration_s', 'total_audio_frames']);

/**
 * The kinds for one result: as resultFloatKind, except that a run where nothing completed writes its audio totals as
 * the int `0` (upstream's `sum([])`), not `0.0`.
 */
export function resultFloatKindFor(result: Record<string, unknown>): (key: string) => FloatKind | undefined {
  if (result.completed !== 0) return resultFloatKind;
  return (key) => (SUMS_OF_COMPLETED.has(key) ? undefined : resultFloatKind(key));
}
