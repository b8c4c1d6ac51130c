/**
 * What each `stallscope bench` flag does, in the groups of its `--help`, for
 * docs/cli.md. The flag table (server/cli/benchFlags.ts) says which flags
 * exist and what values they take; this says what they mean. scripts/cliDocs.ts
 * refuses a flag of the table without an entry here, and an entry for a flag
 * the table does not have, so neither can drift from the other.
 */

interface FlagHelp {
  /** The value's placeholder (`URL`, `N`); none for a switch. */
  arg?: string;
  help: string;
}

export interface FlagGroup {
  title: string;
  /** The docs/design.md anchor that states what these flags do to a run. */
  see?: string;
  flags: Record<string, FlagHelp>;
}

export const BENCH_GROUPS: FlagGroup[] = [
  {
    title: 'Target',
    see: 'request',
    flags: {
      'base-url': {
        arg: 'URL',
        help: 'the server under test, e.g. `http://127.0.0.1:8000`; default from `--host` and `--port`',
      },
      host: { arg: 'H', help: 'host of the server when `--base-url` is not given (default `127.0.0.1`)' },
      port: { arg: 'P', help: 'port of the server when `--base-url` is not given (default 8000)' },
      endpoint: {
        arg: 'PATH',
        help: "the backend's endpoint (default `/v1/chat/completions`; `/v1/audio/speech` for `openai-audio-speech`; `/v1/realtime` for the realtime backends)",
      },
      backend: {
        arg: 'NAME',
        help:
          '`openai-chat-omni` (default), `openai-chat`, `openai-audio-speech` (streamed raw PCM; its format ' +
          'from `VLLM_OMNI_BENCH_AUDIO_SAMPLE_RATE`/`_CHANNELS`, 24 kHz mono s16 by default), ' +
          '`openai-realtime-tts` or `openai-realtime-duplex` (WebSocket sessions); any other is refused',
      },
      model: { arg: 'NAME', help: 'the model to ask for (required)' },
      'served-model-name': { arg: 'NAME', help: 'the model name sent in the body, when it differs from `--model`' },
      header: {
        arg: 'K=V',
        help: 'an extra request header; several after one flag, as vLLM, or the flag repeated',
      },
      'request-id-prefix': { arg: 'P', help: 'prefix of each `x-request-id` (default `<runId>-`)' },
      'ready-check-timeout-sec': {
        arg: 'S',
        help: 're-send the first request until it succeeds, for at most S seconds, before the clock starts (default 0: no check)',
      },
      'keep-alive': {
        help: "reuse connections; by default each request opens its own TCP connection, as vLLM-Omni's client does, so TTFT includes connection set-up (and the TLS handshake with https)",
      },
      insecure: {
        help: '`https://` targets without certificate checks, for self-signed CI servers; without it a refused certificate fails each request with an error saying so',
      },
    },
  },
  {
    title: 'Dataset',
    flags: {
      'dataset-name': { arg: 'NAME', help: '`random` (default), `seed-tts` or `trace`' },
      'dataset-path': {
        arg: 'PATH',
        help: 'the trace file, or the Seed-TTS folder; for Seed-TTS, a path that is not a folder is a Hugging Face dataset id (e.g. `zhaochenyang20/seed-tts-eval`), as vLLM-Omni reads it: the locale from the Hugging Face cache (`HF_HUB_CACHE`, else `HF_HOME/hub`, else `~/.cache/huggingface/hub`), else only `LOCALE/**` downloaded into that cache (`HF_ENDPOINT`, `HF_TOKEN`, `HF_HUB_OFFLINE` honoured)',
      },
      'seed-tts-root': { arg: 'PATH', help: "the Seed-TTS folder (vLLM-Omni's name; wins over `--dataset-path`)" },
      'seed-tts-locale': { arg: 'en|zh', help: 'the Seed-TTS split (default `en`)' },
      'seed-tts-system-prompt': { arg: 'TEXT', help: "the system prompt of Seed-TTS rows (default vLLM-Omni's)" },
      'seed-tts-file-ref-audio': {
        help: '`ref_audio` as a `file://` URI the server reads instead of an inlined data URI, as vLLM-Omni; the server needs `--allowed-local-media-path`',
      },
      'seed-tts-turns-per-session': {
        arg: 'N',
        help: 'realtime backends: N consecutive prompts are the turns of one WebSocket session (default 1); each turn is one request row, and `--max-concurrency` counts sessions, as vLLM-Omni',
      },
      'num-prompts': { arg: 'N', help: 'how many requests (default 1000)' },
      'no-oversample': { help: 'do not repeat Seed-TTS rows to reach `--num-prompts`' },
      'disable-shuffle': { help: 'keep the Seed-TTS rows in file order' },
      'random-input-len': { arg: 'N', help: 'prompt length of the `random` dataset (default 1024)' },
      'random-output-len': { arg: 'N', help: 'output length of the `random` dataset (default 128)' },
      'random-range-ratio': { arg: 'R', help: 'lengths drawn uniformly within ±R of the above, as vLLM' },
      'output-len': { arg: 'N', help: 'Seed-TTS output length (default 2048)' },
      'hf-output-len': { arg: 'N', help: "the same, under vLLM's other name (`--output-len` wins)" },
    },
  },
  {
    title: 'Load',
    see: 'arrivals',
    flags: {
      'max-concurrency': { arg: 'N', help: 'requests in flight at most (default: no limit)' },
      'request-rate': {
        arg: 'R|inf',
        help: 'arrivals per second, gamma-distributed; `inf` (default) sends all at once and lets `--max-concurrency` shape the load',
      },
      burstiness: { arg: 'B', help: 'the gamma shape of the arrivals (default 1: Poisson)' },
      'num-warmups': { arg: 'N', help: 'send the first request N times, untimed, before the run (default 0)' },
      'self-timed': {
        help: 'trace datasets only (and their default): each line is sent at its `timestamp`, in seconds from the start',
      },
      'ramp-up-strategy': {
        arg: 'linear|exponential',
        help: 'ramp the rate from `--ramp-up-start-rps` to `--ramp-up-end-rps`, as vLLM: request i is drawn at the rate i/(N−1) of the way, no rescale; the result gets `ramp_up_*` and `rps_change_events`, the file name `…-ramp-up-linear-1qps-20qps-…`; `--request-rate` must stay `inf`',
      },
      'ramp-up-start-rps': { arg: 'N', help: "the ramp's first rate" },
      'ramp-up-end-rps': { arg: 'N', help: "the ramp's last rate" },
    },
  },
  {
    title: 'Request body',
    flags: {
      'extra-body': {
        arg: 'JSON',
        help: 'a JSON object merged shallowly into the top level of every body',
      },
      temperature: { arg: 'X', help: 'sampling, merged under `--extra-body` as vLLM does' },
      'top-p': { arg: 'X', help: 'sampling, as `--temperature`' },
      'top-k': { arg: 'N', help: 'sampling, as `--temperature`' },
      'min-p': { arg: 'X', help: 'sampling, as `--temperature`' },
      'frequency-penalty': { arg: 'X', help: 'sampling, as `--temperature`' },
      'presence-penalty': { arg: 'X', help: 'sampling, as `--temperature`' },
      'repetition-penalty': { arg: 'X', help: 'sampling, as `--temperature`' },
      'ignore-eos': { help: '`ignore_eos: true` (forced for the `random` dataset, as vLLM does)' },
      'print-stage': {
        help: 'ask for stage metrics (`return_stage_metrics: true`, also added when `tpot` or `itl` is a percentile metric, the default, or with image modalities, unless `--extra-body` sets it); no per-stage block is printed',
      },
    },
  },
  {
    title: 'Timeouts and the breaker',
    see: 'fail-fast-breaker',
    flags: {
      'omni-request-timeout-s': {
        arg: 'S',
        help: "total time per request (default 900; ≤ 0 brings back vLLM's legacy 6 h limit)",
      },
      'first-byte-timeout-s': { arg: 'S', help: "time to the response's first byte (default off)" },
      'idle-timeout-s': { arg: 'S', help: 'no SSE event for S seconds (default off)' },
      'omni-fail-fast-on-timeout': {
        help: 'the fail-fast breaker (off by default): at the first structural timeout stop sending, cancel the queued and in-flight requests, keep the completed outputs and fail closed (exit 3); refused without an effective timeout. The same as `--stop-on timeouts>=1`',
      },
      'stop-on': {
        arg: 'RULE',
        help: 'a stop rule; any rule tripping stops the run as the breaker does (exit 3): `timeouts>=N`, `errors>=N` (failed for any reason but the stop), `consecutive_errors>=N`, `error_rate>X[,window=W][,min=M]` (over the last W ended requests or the whole run, once M ended), `no_progress>=S` (requests in flight and none received a byte for S s; `60` or `60s`), or a result key as `--threshold` names it, evaluated live once M requests completed (`p99_ttft_ms>2000,min=20`). Refused before anything is sent: unknown metrics, impossible numbers, a count or window beyond the run (see [stop rules](design.md#stop-rules))',
      },
    },
  },
  {
    title: 'Results and gates',
    see: 'result-json',
    flags: {
      'percentile-metrics': {
        arg: 'LIST',
        help: 'metrics with percentiles (default `ttft,tpot,itl,e2el,audio_ttfp,audio_rtf`)',
      },
      'metric-percentiles': { arg: 'LIST', help: 'which percentiles (default `99`)' },
      'save-result': { help: 'write the result JSON' },
      'save-detailed': { help: 'add the per-request arrays to it' },
      'append-result': { help: 'append the result as one JSON line to the file' },
      'result-dir': { arg: 'DIR', help: 'where the result goes (default `.`)' },
      'result-filename': { arg: 'NAME', help: 'its file name (default as vLLM names it); implies saving' },
      label: { arg: 'L', help: "the run's label, in the result and the file name" },
      metadata: {
        arg: 'K=V',
        help: 'free-form run metadata (CI build, node, GPU); several after one flag, as vLLM, or the flag repeated; a key given here overrides the same `ci_*` key read from the CI',
      },
      'no-ci-metadata': {
        help: 'do not read where the run ran from the CI environment: by default Buildkite, GitHub Actions and GitLab CI variables become the metadata keys `ci_provider`, `ci_build`, `ci_build_url`, `ci_job`, `ci_node`, `ci_commit`, `ci_pipeline`, `ci_step` (Buildkite: the step key, else its label), `ci_step_label` (see the Stalls board)',
      },
      threshold: {
        arg: 'EXPR',
        help: 'a gate on a result key, e.g. `mean_e2el_ms<=5000`; a threshold on a missing key fails',
      },
      goodput: {
        arg: 'KEY:MS',
        help: 'SLOs on `ttft`, `tpot`, `e2el`, as vLLM: `request_goodput` = requests meeting all of them per second (null without the flag)',
      },
    },
  },
  {
    title: 'Seeding',
    flags: {
      seed: {
        arg: 'N',
        help: "0 to 2³²−1, default 0. Seeds what vLLM seeds, the way it does: the gamma arrivals from a port of numpy's legacy RNG and the Seed-TTS row order from a port of CPython's `random.Random`, so a finite-rate Seed-TTS run sends the same rows in the same order at the same offsets as `vllm bench serve`; the synthetic `random` prompts cannot match (no tokenizer) and use a generator of our own",
      },
    },
  },
  {
    title: 'Seed-TTS accuracy gate',
    see: 'accuracy-gate',
    flags: {
      'seed-tts-wer-eval': {
        help: "after the run, transcribe every answer and write vLLM-Omni's `seed_tts_*` keys (seed-tts runs only; also `SEED_TTS_WER_EVAL=1`); gate with `--threshold 'seed_tts_content_error_mean<=0.05'`; fails when nothing was evaluated",
      },
      'asr-url': {
        arg: 'URL',
        help: 'base URL of a running OpenAI-compatible transcription server (`/v1/audio/transcriptions` is appended); without it stallscope starts its own, as vLLM-Omni transcribes in its own process (see `--asr-python`)',
      },
      'asr-python': {
        arg: 'PY',
        help: "the Python that runs stallscope's own transcription server (default `python3` on `PATH`; on a CI node, the one vLLM-Omni runs in): Whisper through transformers and torch (on the GPU when torch sees one; `SEED_TTS_EVAL_DEVICE` overrides), for `zh` paraformer-zh through funasr and zhconv; a missing package refuses the run before anything is sent. [design.md](design.md#local-asr)",
      },
      'asr-start-timeout-s': {
        arg: 'S',
        help: "seconds for stallscope's own transcription server to load its model and listen (default 1800: a first run downloads Whisper large-v3)",
      },
      'asr-model': {
        arg: 'NAME',
        help: 'the recogniser model (default `openai/whisper-large-v3`, or `SEED_TTS_HF_WHISPER_MODEL`); for its own server, a Hub id or a folder transformers loads; `zh` runs paraformer-zh',
      },
      'asr-concurrency': {
        arg: 'N',
        help: 'transcriptions in flight (default 4 with `--asr-url`; 1 with its own server, which runs them one at a time)',
      },
      'asr-header': {
        arg: 'K=V',
        help: 'a header for the transcription server, e.g. `Authorization=Bearer …`',
      },
      'asr-timeout-s': { arg: 'S', help: 'per transcription (default 120)' },
      'seed-tts-wer-save-items': {
        help: 'add the per-utterance rows `seed_tts_wer_eval_items` (also `SEED_TTS_WER_SAVE_ITEMS=1`)',
      },
      'seed-tts-save-audio-dir': {
        arg: 'DIR',
        help: 'keep every answer as a 24 kHz WAV there (also `SEED_TTS_WER_SAVE_AUDIO_DIR`)',
      },
    },
  },
  {
    title: 'Server stacks',
    see: 'server-stacks',
    flags: {
      'server-pid': {
        arg: 'PID|auto',
        help: "the server process whose tree py-spy reads; `auto`: the owner of the base URL's listening port, loopback only",
      },
      'capture-server-stacks': { help: "py-spy dump of the server's process tree at the first timeout" },
      'server-stall-after-s': {
        arg: 'S',
        help: 'also capture when a request got no SSE event for S s; then at most every S s, at most 5 times. With `--probe-liveness-at-stall` it is also a stall that starts the liveness questions (then `--server-pid` is not needed)',
      },
      'server-stacks-native': { help: 'py-spy `--native` (native frames, where a device sync shows up)' },
      'py-spy': { arg: 'PATH', help: 'the py-spy program (default `py-spy` on PATH)' },
      'server-phase-rules': {
        arg: 'FILE',
        help: 'phase rules replacing the defaults (`server/engine/probes/serverStacks/defaultPhaseRules.json`, same shape)',
      },
      'require-server-stacks': {
        help: 'refuse to start (exit 2, `CONFIG_STACKS_UNAVAILABLE`) when the check before the run finds that no stack can be taken: py-spy missing or not running, or no ptrace rights (`CAP_SYS_PTRACE`, `kernel.yama.ptrace_scope`); without it that check is one warning line and the run goes on',
      },
    },
  },
  {
    title: 'Below Python at the stall',
    see: 'below-python',
    flags: {
      'gpu-state-at-stall': {
        help: "at the first stall, beside the first capture: `rocm-smi` (else `nvidia-smi`) once and `dmesg --time-format iso` once, each killed with its process group at 5 s, output bounded; result keys `gpu_at_stall` (per device: `utilization_pct`, memory, power, the server PIDs holding it) and `kernel_log_at_stall` (the GPU driver's hang/reset lines since the run started). On by default with `--capture-server-stacks`",
      },
      'no-gpu-state-at-stall': { help: 'turn it off' },
      'gpu-smi': {
        arg: 'PATH',
        help: 'the GPU tool to run instead of `rocm-smi`/`nvidia-smi` from PATH (a name containing `nvidia` is asked as nvidia-smi, any other as rocm-smi)',
      },
    },
  },
  {
    title: 'Liveness at the stall',
    see: 'liveness-at-stall',
    flags: {
      'probe-liveness-at-stall': {
        help: 'at the first stall evidence (a structural timeout, a `no_progress` trip, or `--server-stall-after-s`) ask the server `GET /health`, `GET /v1/models` and one short text-only chat request, each bounded (2 s), once, without delaying the stop; the result key `liveness_at_stall` says what answered and how fast (see [liveness at the stall](design.md#liveness-at-stall))',
      },
    },
  },
  {
    title: 'CI outputs',
    see: 'ci-outputs',
    flags: {
      'junit-xml': {
        arg: 'FILE',
        help: 'write the run as JUnit XML: one `<testsuite>`, one `<testcase>` whose `classname` is the CI job (pipeline and step) and whose `name` is the benchmark (backend, dataset, label), stable across builds; a stall is `<failure type="stall">` naming its phase and fingerprint (with `--report-to`, the one the board files the run under), another failure its own type; `<properties>` carry fingerprint, phase, build, node, commit and the dashboard run URL, `<system-out>` the stack and the liveness sentence',
      },
      'ci-summary': {
        help: 'put the verdict and the stall card on the job page: on Buildkite `buildkite-agent annotate --style error|warning|success --context stallscope-<step>`, on GitHub Actions appended to `$GITHUB_STEP_SUMMARY` (each under 1 MiB); with `--report-to` also the board sentence and links to the run and the board. A missing or failing agent, or an unwritable file, is one warning: the result and exit code are unchanged',
      },
    },
  },
  {
    title: 'Other',
    flags: {
      'report-to': {
        arg: 'URL',
        help: 'stream the run into a stallscope dashboard; if it is unreachable the benchmark still runs and says so once',
      },
      'run-id': { arg: 'ID', help: "the run's id (default `bench-` and 8 hex digits)" },
      'disable-tqdm': { help: 'no progress bar' },
      omni: { help: "vLLM's switch into the omni benchmark; always on here" },
      help: { help: 'print the usage and exit' },
    },
  },
];
