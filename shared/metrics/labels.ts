/**
 * What each result key and metric is called, once: `vllm bench serve`'s
 * printed summary (server/engine/results/summary.ts) and the dashboard's
 * metrics table (web/state/metricsTable.ts) use the same words, so a number
 * read in CI's log is found under the same name in the browser.
 * The texts are vLLM's, verbatim (its spacing quirks included).
 */
import type { PercentileMetric } from './input.ts';

/** Section title of each percentile metric, as vLLM prints it. */
export const METRIC_TITLES: Record<PercentileMetric, string> = {
  ttft: 'Time to First Token',
  tpot: 'Time per Output Token (excl. 1st token)',
  itl: 'Inter-token Latency',
  e2el: 'End-to-end Latency',
  audio_ttfp: 'Time to First Packet',
  audio_rtf: 'Real Time Factor',
  audio_duration: 'Audio Duration',
  audio_underrun: 'Streaming Audio Underrun',
};

/** Label of each scalar result key: vLLM's summary lines, then stallscope's fail-fast block. */
export const RESULT_LABELS = {
  completed: 'Successful requests',
  failed: 'Failed requests',
  max_concurrency: 'Maximum request concurrency',
  request_rate: 'Request rate configured (RPS)',
  duration: 'Benchmark duration (s)',
  request_throughput: 'Request throughput (req/s)',
  request_goodput: 'Request goodput (req/s)',
  max_concurrent_requests: 'Peak concurrent requests',
  // stallscope's own: the exact sweep (vLLM's figure above counts one-second buckets).
  max_concurrent_requests_exact: 'Peak concurrent requests (exact)',
  total_input_tokens: 'Total input tokens',
  total_output_tokens: 'Total generated tokens',
  output_throughput: 'Output token throughput (tok/s)',
  max_output_tokens_per_s: 'Peak output token throughput (tok/s)',
  total_token_throughput: 'Total Token throughput (tok/s)',
  total_audio_duration_s: 'Total audio duration generated(s)',
  total_audio_frames: 'Total audio frames generated',
  audio_throughput: 'Audio throughput(audio duration/s)',
  timed_out_requests: 'Timed out requests',
  cancelled_after_timeout_requests: 'Cancelled after timeout',
  not_dispatched_requests: 'Unsent',
  cancelled_requests: 'Cancelled by an interrupt',
  cleanup_forced_sockets: 'Sockets closed by the fallback',
} as const;

export type LabelledKey = keyof typeof RESULT_LABELS;

/** The Seed-TTS gate's block, as vLLM-Omni's print_seed_tts_wer_summary prints it (title, then key → label). */
export const SEED_TTS_TITLE = 'Seed-TTS eval (seed-tts-eval protocol)';
export const SEED_TTS_LABELS = {
  seed_tts_content_evaluated: 'Evaluated (WER, lower is better)',
  seed_tts_content_error_mean: 'Mean WER',
  seed_tts_content_error_median: 'Median WER',
  seed_tts_request_failed: 'Request failed',
  seed_tts_no_pcm: 'No PCM captured',
  seed_tts_asr_failed: 'ASR / WER failed',
} as const;
