/**
 * The flag table of `stallscope bench`. Names follow `vllm bench serve
 * --omni` where the concept is the same; IGNORED_VLLM_OPTIONS are accepted so
 * a CI command line can be pasted as is, each with one warning saying what
 * is not done.
 */
import type { ParseArgsConfig } from 'node:util';
import { DEFAULT_TOTAL_TIMEOUT_S, LEGACY_TOTAL_TIMEOUT_S } from '../../shared/config/timeouts.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

export const BENCH_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  omni: { type: 'boolean' }, // vLLM's switch into the omni benchmark; always on here
  'run-id': { type: 'string' },
  'base-url': { type: 'string' },
  insecure: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  endpoint: { type: 'string' },
  backend: { type: 'string' },
  model: { type: 'string' },
  'served-model-name': { type: 'string' },
  label: { type: 'string' },
  metadata: { type: 'string', multiple: true },
  'no-ci-metadata': { type: 'boolean' },
  header: { type: 'string', multiple: true },
  'request-id-prefix': { type: 'string' },
  'ready-check-timeout-sec': { type: 'string' },
  'dataset-name': { type: 'string' },
  'dataset-path': { type: 'string' },
  'seed-tts-root': { type: 'string' },
  'seed-tts-locale': { type: 'string' },
  'seed-tts-system-prompt': { type: 'string' },
  'seed-tts-file-ref-audio': { type: 'boolean' },
  'seed-tts-turns-per-session': { type: 'string' },
  'hf-output-len': { type: 'string' },
  'output-len': { type: 'string' },
  'random-input-len': { type: 'string' },
  'random-output-len': { type: 'string' },
  'random-range-ratio': { type: 'string' },
  'no-oversample': { type: 'boolean' },
  'disable-shuffle': { type: 'boolean' },
  'self-timed': { type: 'boolean' },
  'num-prompts': { type: 'string' },
  'max-concurrency': { type: 'string' },
  'request-rate': { type: 'string' },
  burstiness: { type: 'string' },
  seed: { type: 'string' },
  'num-warmups': { type: 'string' },
  'extra-body': { type: 'string' },
  temperature: { type: 'string' },
  'top-p': { type: 'string' },
  'top-k': { type: 'string' },
  'min-p': { type: 'string' },
  'frequency-penalty': { type: 'string' },
  'presence-penalty': { type: 'string' },
  'repetition-penalty': { type: 'string' },
  'percentile-metrics': { type: 'string' },
  'metric-percentiles': { type: 'string' },
  'omni-request-timeout-s': { type: 'string' },
  'omni-fail-fast-on-timeout': { type: 'boolean' },
  'stop-on': { type: 'string', multiple: true },
  'keep-alive': { type: 'boolean' },
  'first-byte-timeout-s': { type: 'string' },
  'idle-timeout-s': { type: 'string' },
  threshold: { type: 'string', multiple: true },
  goodput: { type: 'string', multiple: true },
  'ramp-up-strategy': { type: 'string' },
  'print-stage': { type: 'boolean' },
  'ignore-eos': { type: 'boolean' },
  'ramp-up-start-rps': { type: 'string' },
  'ramp-up-end-rps': { type: 'string' },
  'save-result': { type: 'boolean' },
  'save-detailed': { type: 'boolean' },
  'append-result': { type: 'boolean' },
  'result-dir': { type: 'string' },
  'result-filename': { type: 'string' },
  'disable-tqdm': { type: 'boolean' },
  'report-to': { type: 'string' },
  // CI outputs (docs/design.md#ci-outputs).
  'junit-xml': { type: 'string' },
  'ci-summary': { type: 'boolean' },
  // Seed-TTS accuracy gate (docs/design.md#accuracy-gate).
  'seed-tts-wer-eval': { type: 'boolean' },
  'seed-tts-wer-save-items': { type: 'boolean' },
  'seed-tts-save-audio-dir': { type: 'string' },
  'asr-url': { type: 'string' },
  'asr-model': { type: 'string' },
  'asr-concurrency': { type: 'string' },
  'asr-header': { type: 'string', multiple: true },
  'asr-timeout-s': { type: 'string' },
  'asr-python': { type: 'string' },
  'asr-start-timeout-s': { type: 'string' },
  // Server stacks: py-spy captures of the server's process tree (docs/design.md#server-stacks).
  'server-pid': { type: 'string' },
  'capture-server-stacks': { type: 'boolean' },
  'server-stall-after-s': { type: 'string' },
  'server-stacks-native': { type: 'boolean' },
  'py-spy': { type: 'string' },
  'server-phase-rules': { type: 'string' },
  'require-server-stacks': { type: 'boolean' },
  // Below Python at the stall: the GPU tool and the kernel log (docs/design.md#below-python).
  'gpu-state-at-stall': { type: 'boolean' },
  'no-gpu-state-at-stall': { type: 'boolean' },
  'gpu-smi': { type: 'string' },
  // Liveness at the stall: what the server still answers (docs/design.md#liveness-at-stall).
  'probe-liveness-at-stall': { type: 'boolean' },
} as const satisfies Options;

/** vLLM flags accepted for compatibility: each is parsed and only warned about (IGNORED_VLLM_NOTES). */
export const IGNORED_VLLM_OPTIONS = {
  tokenizer: { type: 'string' },
  'tokenizer-mode': { type: 'string' },
  'trust-remote-code': { type: 'boolean' },
  profile: { type: 'boolean' },
  logprobs: { type: 'string' },
  'tokenizer-revision': { type: 'string' },
  'use-beam-search': { type: 'boolean' },
  'probe-request-rate': { type: 'string' },
  'hf-split': { type: 'string' },
  'hf-subset': { type: 'string' },
} as const satisfies Options;

/** What stallscope does not do for each ignored vLLM flag (the warning's text). */
export const IGNORED_VLLM_NOTES: Record<keyof typeof IGNORED_VLLM_OPTIONS, string> = {
  tokenizer: 'no tokenizer is loaded; prompt lengths are estimates until the server reports usage',
  'tokenizer-mode': 'no tokenizer is loaded',
  'trust-remote-code': 'no model code is loaded on the client',
  profile: 'the server profiler is not started',
  logprobs: 'logprobs are not requested',
  'tokenizer-revision': 'no tokenizer is loaded',
  'use-beam-search': 'beam search is not requested',
  'probe-request-rate': 'no probe requests are sent alongside the run',
  'hf-split': 'a Seed-TTS dataset is read by locale (--seed-tts-locale), not by split',
  'hf-subset': 'a Seed-TTS dataset is read by locale (--seed-tts-locale), not by subset',
};

/** Every flag `stallscope bench` accepts, typed: parseArgs gives each its own value type. */
export const ALL_BENCH_OPTIONS = { ...BENCH_OPTIONS, ...IGNORED_VLLM_OPTIONS } as const satisfies Options;

export const BENCH_USAGE = `usage: stallscope bench [options]   (flags as vllm bench serve --omni)

target     --base-url URL | --host H --port P, --endpoint (default: the backend's; /v1/chat/completions),
           --backend openai-chat-omni|openai-chat|openai-audio-speech (/v1/audio/speech, raw PCM)
           |openai-realtime-tts|openai-realtime-duplex (/v1/realtime, WebSocket sessions),
           --model M, --served-model-name N,
           --header K=V ... (repeatable), --request-id-prefix P, --ready-check-timeout-sec S,
           --insecure (https: skip certificate checks, for self-signed CI servers),
           --keep-alive (reuse connections; default: one per request, as vLLM-Omni, so TTFT includes the connect)
dataset    --dataset-name random|seed-tts|trace, --dataset-path P (seed-tts: a folder, or a Hub id such as
           zhaochenyang20/seed-tts-eval, from the Hugging Face cache or downloaded into it), --seed-tts-locale en|zh,
           --num-prompts N, --no-oversample, --disable-shuffle, --random-input-len N,
           --random-output-len N, --random-range-ratio R, --output-len N, --hf-output-len N, --seed N,
           --seed-tts-file-ref-audio (ref_audio as a file:// URI, not inlined),
           --seed-tts-turns-per-session N (realtime backends: N consecutive prompts are the turns of one
           WebSocket session; --max-concurrency counts sessions)
load       --max-concurrency N, --request-rate R|inf, --burstiness B, --num-warmups N,
           --self-timed (trace only; default for trace),
           --ramp-up-strategy linear|exponential --ramp-up-start-rps N --ramp-up-end-rps N
body       --extra-body JSON, --temperature/--top-p/--top-k/... (merged under --extra-body), --ignore-eos
timeouts   --omni-request-timeout-s S (default ${DEFAULT_TOTAL_TIMEOUT_S}; <= 0 → legacy ${LEGACY_TOTAL_TIMEOUT_S / 3600} h),
           --first-byte-timeout-s S, --idle-timeout-s S, --omni-fail-fast-on-timeout (= --stop-on timeouts>=1)
stop       --stop-on RULE (repeatable; any rule stops the run, fail closed): timeouts>=N, errors>=N,
           consecutive_errors>=N, error_rate>X[,window=W][,min=M], no_progress>=S (no byte for S s),
           KEY>X[,min=M] (a --threshold key, live once M completed), e.g. --stop-on 'no_progress>=60s'
results    --percentile-metrics LIST, --metric-percentiles LIST, --save-result,
           --save-detailed, --append-result, --result-dir D, --result-filename F,
           --label L, --metadata K=V ... (repeatable; overrides the ci_* keys read from Buildkite,
           GitHub Actions or GitLab CI), --no-ci-metadata, --threshold EXPR (repeatable),
           --goodput KEY:MS ... (ttft, tpot, e2el SLOs → request_goodput)
accuracy   --seed-tts-wer-eval (transcribe every answer after the run: seed_tts_* keys; gate with
           --threshold 'seed_tts_content_error_mean<=0.05'; fails when none is evaluated),
           --asr-url URL (a running transcription server; without it stallscope starts its own:
           --asr-python PY (python3; needs torch + transformers, for zh funasr + zhconv),
           --asr-start-timeout-s S (1800)), --asr-model M (openai/whisper-large-v3),
           --asr-concurrency N (4; 1 with its own server), --asr-header K=V ..., --asr-timeout-s S (120),
           --seed-tts-wer-save-items, --seed-tts-save-audio-dir D
server     --server-pid PID|auto (auto: the owner of the base URL's port; loopback only),
stacks     --capture-server-stacks (py-spy dump of the server tree at the first timeout),
           --server-stall-after-s S (capture when a request got no SSE event for S s; ≤ 5 times),
           --server-stacks-native (py-spy --native), --py-spy PATH, --server-phase-rules FILE,
           --require-server-stacks (refuse to start when py-spy or the ptrace rights are missing)
gpu        --gpu-state-at-stall (default with --capture-server-stacks; --no-gpu-state-at-stall): at the
           first stall rocm-smi, else nvidia-smi (--gpu-smi PATH), and dmesg's GPU hang/reset lines,
           each bounded (5 s); result keys gpu_at_stall, kernel_log_at_stall
liveness   --probe-liveness-at-stall (at the first stall: GET /health, GET /v1/models and one short
           text-only request, each bounded; result key liveness_at_stall)
ci         --junit-xml FILE (the run as a JUnit test: a stall is <failure type="stall"> naming its phase and
           fingerprint, with --report-to the board's), --ci-summary (a Buildkite annotation, or GitHub's
           $GITHUB_STEP_SUMMARY: verdict, stall card, board sentence, links; never fails the run)
other      --report-to URL (stream events to a stallscope dashboard), --run-id ID, --disable-tqdm,
           --print-stage (requests stage metrics; no per-stage block is printed)

exit codes: 0 passed, 1 failed, 2 usage/config error, 3 failed_closed, 4 interrupted, 5 errored`;
