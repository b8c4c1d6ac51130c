/**
 * The benchmark engine's input. The CLI (`stallscope bench`) and the
 * dashboard (RunSpec) both build one of these; the engine validates it
 * before anything is sent (see validate.ts). What a run probe watches (the
 * server stacks) is the probe's own setting, not the engine's: see probe.ts.
 */
import type { ConnectionMode } from '../../shared/types.ts';
import type { MetricOptions } from '../../shared/metrics/input.ts';

export type DatasetConfig =
  | { name: 'random'; inputLen: number; outputLen: number; rangeRatio?: number }
  | {
      name: 'seed-tts';
      /** A folder with `{locale}/meta.lst`, or a Hub dataset id (ORG/NAME) read from or downloaded into the Hugging Face cache. */
      path: string;
      /** `en` or `zh` (vLLM-Omni's locales); other folder names are read as they are. */
      locale: string;
      outputLen?: number;
      noOversample: boolean;
      disableShuffle?: boolean;
      systemPrompt?: string;
      fileRefAudio?: boolean;
    }
  | { name: 'trace'; path: string };

export interface TimeoutConfig {
  /** Seconds for the whole request; undefined → 900; ≤ 0 → legacy 6 h (shared/config/timeouts.ts). */
  totalS?: number;
  /** Seconds until the response headers/first byte; optional. */
  firstByteS?: number;
  /** Seconds without an SSE event; optional. */
  idleS?: number;
}

export interface BenchConfig {
  /** Run id; used in request ids (`<runId>-<index>`) unless requestIdPrefix is set. */
  runId: string;
  baseUrl: string;
  endpoint: string; // default '/v1/chat/completions'
  backend: string; // 'openai-chat-omni' (also accepted: 'openai-chat')
  model: string;
  servedModelName?: string;
  label?: string | null;
  apiKey?: string | null;
  headers?: Record<string, string>;
  requestIdPrefix?: string;
  metadata?: Record<string, string>;
  /** Read the target's model list and version at the start (default true; docs/design.md#server-identity). */
  serverIdentity?: boolean;
  dataset: DatasetConfig;
  numPrompts: number;
  /**
   * `--seed-tts-turns-per-session`: the realtime backends group this many consecutive prompts into one
   * WebSocket session (docs/design.md#realtime); each prompt stays one request row. Default 1.
   */
  turnsPerSession?: number;
  maxConcurrency: number | null;
  requestRate: number | 'inf';
  burstiness: number;
  /** Self-timed dispatch from the trace's timestamps. */
  selfTimed?: boolean;
  seed: number;
  numWarmups: number;
  readyCheckTimeoutS?: number;
  extraBody?: Record<string, unknown>;
  percentileMetrics: string[];
  metricPercentiles: number[];
  timeouts: TimeoutConfig;
  /** `--omni-fail-fast-on-timeout`: the stop rule `timeouts>=1`. */
  failFast: boolean;
  /** `--stop-on RULE`: stop rules (shared/config/stopRules.ts; docs/design.md#stop-rules), as written. */
  stopOn?: string[];
  thresholds: string[];
  /**
   * `--ramp-up-strategy` with start/end RPS: each request's rate moves from
   * start to end over the run (requestRate must stay 'inf'); intervals are
   * drawn at that rate with no rescale, as vLLM does.
   */
  rampUp?: RampUp;
  /** `--ignore-eos`: `ignore_eos: true` in every body, before the extra body is merged (as vLLM). */
  ignoreEos?: boolean;
  /** `--print-stage`: ask for stage metrics even when the percentile metrics would not (see requestBody.ts). */
  printStage?: boolean;
  /** `--goodput KEY:MS` SLOs (ttft, tpot, e2el); when set, `request_goodput` is computed. */
  goodput?: MetricOptions['goodput'];
  save?: { dir: string; filename?: string; detailed: boolean; append?: boolean } | null;
  /**
   * `per_request` (default, as vLLM-Omni's `force_close=True`: a new TCP
   * connection per request, so TTFT includes the connect) or `keep_alive`
   * (`--keep-alive`: connections reused).
   */
  connectionMode?: ConnectionMode;
  /** Bound on one SSE event in bytes (default 16 MiB); a larger event fails its request. */
  maxEventBytes?: number;
  /** `--insecure`: https targets' certificates are not checked (self-signed CI servers). */
  insecure?: boolean;
  /** `--seed-tts-wer-eval`: transcribe every answer after the run and write the seed_tts_* keys. */
  seedTtsEval?: SeedTtsEvalConfig | null;
}

/** The Seed-TTS accuracy gate's recogniser and outputs (docs/design.md#accuracy-gate). */
export interface SeedTtsEvalConfig {
  /**
   * Base URL of a running OpenAI-compatible transcription server;
   * `/v1/audio/transcriptions` is appended. Without it, `localAsr` says how
   * stallscope runs its own (docs/design.md#local-asr).
   */
  asrUrl?: string;
  /** stallscope's own transcription server, started for the evaluation and stopped after it. */
  localAsr?: LocalAsrConfig;
  /** Default `openai/whisper-large-v3`. */
  asrModel: string;
  /** Transcriptions in flight (default 4 with --asr-url; 1 with the local server, which runs them one at a time). */
  asrConcurrency: number;
  asrHeaders?: Record<string, string>;
  /** Seconds for one transcription (default 120). */
  asrTimeoutS?: number;
  /** `--seed-tts-wer-save-items`: write `seed_tts_wer_eval_items`. */
  saveItems: boolean;
  /** `--seed-tts-save-audio-dir`: keep every answer's audio as a WAV file there. */
  saveAudioDir?: string | null;
}

/** How stallscope's own transcription server runs (`--asr-python`, `--asr-start-timeout-s`). */
export interface LocalAsrConfig {
  /** The Python that runs it (default `python3` on PATH). */
  python: string;
  /** Seconds to load the model and listen (default 1800: a first run downloads Whisper large-v3). */
  startTimeoutS?: number;
}

export const DEFAULT_ASR_MODEL = 'openai/whisper-large-v3';
export const DEFAULT_ASR_CONCURRENCY = 4;
export const DEFAULT_ASR_TIMEOUT_S = 120;
export const DEFAULT_ASR_PYTHON = 'python3';
export const DEFAULT_LOCAL_ASR_CONCURRENCY = 1;
export const DEFAULT_ASR_START_TIMEOUT_S = 1800;

export interface RampUp {
  strategy: 'linear' | 'exponential';
  startRps: number;
  endRps: number;
}
