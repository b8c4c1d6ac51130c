/**
 * The run configuration: the engine's one input, built once from whatever the
 * user gave — `stallscope bench`'s flags (server/cli/benchArgs.ts) or a
 * RunSpec (`specToRunConfig`, runSpec.ts) — and checked by one
 * validator (`runConfigIssues`, runConfigIssues.ts) that the form, the route,
 * the CLI and the engine all call. Its fields are grouped by what they are
 * for. The TypeScript types come from the schema (`Static`).
 *
 * Adding an option: one field in the group it belongs to here (and its name
 * in `RUN_CONFIG_NAMES`, runConfigNames.ts, when a rule names it), then its
 * use — the flag or RunSpec field that sets it and the engine code that reads it.
 */
import { Type, type Static } from 'typebox';

const Headers = Type.Record(Type.String(), Type.String());
const Seconds = Type.Number();

/** The dataset the prompts come from: random, Seed-TTS (a folder, or docs/design.md#hub-datasets) or a trace. */
export const DatasetConfigSchema = Type.Union([
  Type.Object({
    name: Type.Literal('random'),
    inputLen: Type.Integer(),
    outputLen: Type.Integer(),
    rangeRatio: Type.Optional(Type.Number()),
  }),
  Type.Object({
    name: Type.Literal('seed-tts'),
    /** A folder with `{locale}/meta.lst`, or a Hub dataset id (ORG/NAME) read from or downloaded into the Hugging Face cache. */
    path: Type.String(),
    /** `en` or `zh` (vLLM-Omni's locales); other folder names are read as they are. */
    locale: Type.String(),
    outputLen: Type.Optional(Type.Integer()),
    noOversample: Type.Boolean(),
    disableShuffle: Type.Optional(Type.Boolean()),
    systemPrompt: Type.Optional(Type.String()),
    fileRefAudio: Type.Optional(Type.Boolean()),
  }),
  Type.Object({ name: Type.Literal('trace'), path: Type.String() }),
]);
export type DatasetConfig = Static<typeof DatasetConfigSchema>;

/** Who the run talks to and how each request is addressed. */
export const TargetConfigSchema = Type.Object({
  baseUrl: Type.String(),
  /** Default: the backend's own (shared/config/backends.ts). */
  endpoint: Type.String(),
  /** One of shared/config/backends.ts's names (an unknown one is refused). */
  backend: Type.String(),
  model: Type.String(),
  servedModelName: Type.Optional(Type.String()),
  apiKey: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  headers: Type.Optional(Headers),
  /** Request ids are `<prefix><index>`; default `<runId>-`. */
  requestIdPrefix: Type.Optional(Type.String()),
  /** `--insecure`: https targets' certificates are not checked (self-signed CI servers). */
  insecure: Type.Optional(Type.Boolean()),
});

/** What is sent: the prompts and what goes in each body. */
export const WorkloadConfigSchema = Type.Object({
  dataset: DatasetConfigSchema,
  numPrompts: Type.Integer(),
  /**
   * `--seed-tts-turns-per-session`: the realtime backends group this many consecutive prompts into one
   * WebSocket session (docs/design.md#realtime); each prompt stays one request row. Default 1.
   */
  turnsPerSession: Type.Optional(Type.Integer()),
  /** Seeds the arrival schedule (numpy, as vLLM) and the Seed-TTS row order (Python random). */
  seed: Type.Integer(),
  extraBody: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** `--ignore-eos`: `ignore_eos: true` in every body, before the extra body is merged (as vLLM). */
  ignoreEos: Type.Optional(Type.Boolean()),
  /** `--print-stage`: ask for stage metrics even when the percentile metrics would not (see requestBody.ts). */
  printStage: Type.Optional(Type.Boolean()),
});

/**
 * `--ramp-up-strategy` with start/end RPS: each request's rate moves from
 * start to end over the run (requestRate must stay 'inf'); intervals are
 * drawn at that rate with no rescale, as vLLM does.
 */
export const RampUpSchema = Type.Object({
  strategy: Type.Union([Type.Literal('linear'), Type.Literal('exponential')]),
  startRps: Type.Number(),
  endRps: Type.Number(),
});
export type RampUp = Static<typeof RampUpSchema>;

/** When requests are sent and over which connections. */
export const DispatchConfigSchema = Type.Object({
  maxConcurrency: Type.Union([Type.Integer(), Type.Null()]),
  requestRate: Type.Union([Type.Number(), Type.Literal('inf')]),
  burstiness: Type.Number(),
  /** Self-timed dispatch from the trace's timestamps. */
  selfTimed: Type.Optional(Type.Boolean()),
  rampUp: Type.Optional(RampUpSchema),
  numWarmups: Type.Integer(),
  readyCheckTimeoutS: Type.Optional(Seconds),
  /**
   * `per_request` (default, as vLLM-Omni's `force_close=True`: a new TCP
   * connection per request, so TTFT includes the connect) or `keep_alive`
   * (`--keep-alive`: connections reused).
   */
  connectionMode: Type.Optional(Type.Union([Type.Literal('per_request'), Type.Literal('keep_alive')])),
});

export const TimeoutConfigSchema = Type.Object({
  /** Seconds for the whole request; undefined → 900; ≤ 0 → legacy 6 h (shared/config/timeouts.ts). */
  totalS: Type.Optional(Seconds),
  /** Seconds until the response headers/first byte; optional. */
  firstByteS: Type.Optional(Seconds),
  /** Seconds without an SSE event; optional. */
  idleS: Type.Optional(Seconds),
});

/** Timeouts and stop rules: what ends a request or the run early. */
export const LimitsConfigSchema = Type.Object({
  timeouts: TimeoutConfigSchema,
  /** `--omni-fail-fast-on-timeout`: the stop rule `timeouts>=1`. */
  failFast: Type.Boolean(),
  /** `--stop-on RULE`: stop rules (shared/config/stopRules.ts; docs/design.md#stop-rules), as written. */
  stopOn: Type.Optional(Type.Array(Type.String())),
  /** Bound on one SSE event in bytes (default 16 MiB); a larger event fails its request. */
  maxEventBytes: Type.Optional(Type.Integer()),
});

/** The server-stacks probe's settings (docs/design.md#server-stacks). */
export const ServerStacksSettingsSchema = Type.Object({
  /** `--server-pid PID|auto`. */
  pid: Type.Union([Type.Integer(), Type.Literal('auto')]),
  /** `--capture-server-stacks`: capture at the first structural timeout. */
  captureOnTimeout: Type.Boolean(),
  /** `--server-stall-after-s S`: capture when an in-flight request got no SSE event for S s. */
  stallAfterS: Type.Optional(Seconds),
  /** `--server-stacks-native`: py-spy --native. */
  native: Type.Boolean(),
  /** `--py-spy PATH`; default `py-spy` from PATH. */
  pySpy: Type.Optional(Type.String()),
  /** `--server-phase-rules FILE`; default the MiniCPM-o 4.5 Code2Wav rules. */
  rulesFile: Type.Optional(Type.String()),
  /**
   * `--gpu-state-at-stall` / `--no-gpu-state-at-stall`: the GPU tool and the kernel log at the first stall
   * (docs/design.md#below-python); unset means on whenever `captureOnTimeout` is.
   */
  gpuStateAtStall: Type.Optional(Type.Boolean()),
  /** `--gpu-smi PATH`; default rocm-smi, else nvidia-smi, from PATH. */
  gpuSmi: Type.Optional(Type.String()),
  /** `--require-server-stacks`: refuse to start when no stack could be taken (py-spy, ptrace rights). */
  requireStacks: Type.Optional(Type.Boolean()),
});

/** The liveness probe's settings (docs/design.md#liveness-at-stall). */
export const LivenessSettingsSchema = Type.Object({
  enabled: Type.Boolean(),
  /** `--server-stall-after-s`: a request this long without an SSE event also starts the check. */
  stallAfterS: Type.Optional(Seconds),
});
export type LivenessSettings = Static<typeof LivenessSettingsSchema>;

/** What the run gathers about the server beside its figures; the probes are built from it by who starts the run. */
export const EvidenceConfigSchema = Type.Object({
  /** Read the target's model list and version at the start (default true; docs/design.md#server-identity). */
  serverIdentity: Type.Optional(Type.Boolean()),
  /** `--server-pid` with its capture flags, or a URL target's "Capture server stacks"; none without a pid. */
  serverStacks: Type.Optional(ServerStacksSettingsSchema),
  /** `--probe-liveness-at-stall` (a dashboard run's `livenessAtStall`, on by default). */
  liveness: Type.Optional(LivenessSettingsSchema),
});

/** How stallscope's own transcription server runs (`--asr-python`, `--asr-start-timeout-s`). */
export const LocalAsrConfigSchema = Type.Object({
  /** The Python that runs it (default `python3` on PATH). */
  python: Type.String(),
  /** Seconds to load the model and listen (default 1800: a first run downloads Whisper large-v3). */
  startTimeoutS: Type.Optional(Seconds),
});

/** The Seed-TTS accuracy gate's recogniser and outputs (docs/design.md#accuracy-gate). */
export const SeedTtsEvalConfigSchema = Type.Object({
  /**
   * Base URL of a running OpenAI-compatible transcription server;
   * `/v1/audio/transcriptions` is appended. Without it, `localAsr` says how
   * stallscope runs its own (docs/design.md#local-asr).
   */
  asrUrl: Type.Optional(Type.String()),
  /** stallscope's own transcription server, started for the evaluation and stopped after it. */
  localAsr: Type.Optional(LocalAsrConfigSchema),
  /** Default `openai/whisper-large-v3`. */
  asrModel: Type.String(),
  /** Transcriptions in flight (default 4 with --asr-url; 1 with the local server, which runs them one at a time). */
  asrConcurrency: Type.Integer(),
  asrHeaders: Type.Optional(Headers),
  /** Seconds for one transcription (default 120). */
  asrTimeoutS: Type.Optional(Seconds),
  /** `--seed-tts-wer-save-items`: write `seed_tts_wer_eval_items`. */
  saveItems: Type.Boolean(),
  /** `--seed-tts-save-audio-dir`: keep every answer's audio as a WAV file there. */
  saveAudioDir: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type SeedTtsEvalConfig = Static<typeof SeedTtsEvalConfigSchema>;

/** The Seed-TTS WER gate (`--seed-tts-wer-eval`): transcribe every answer after the run. */
export const AccuracyConfigSchema = Type.Object({
  seedTtsEval: Type.Optional(Type.Union([SeedTtsEvalConfigSchema, Type.Null()])),
});

/** What the run writes and how it is judged. */
export const OutputConfigSchema = Type.Object({
  label: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  save: Type.Optional(
    Type.Union([
      Type.Object({
        dir: Type.String(),
        filename: Type.Optional(Type.String()),
        detailed: Type.Boolean(),
        append: Type.Optional(Type.Boolean()),
      }),
      Type.Null(),
    ]),
  ),
  percentileMetrics: Type.Array(Type.String()),
  metricPercentiles: Type.Array(Type.Number()),
  thresholds: Type.Array(Type.String()),
  /** `--goodput KEY:MS` SLOs (ttft, tpot, e2el); when set, `request_goodput` is computed. */
  goodput: Type.Optional(Type.Record(Type.String(), Type.Number())),
});

export const RunConfigSchema = Type.Object({
  /** Run id; used in request ids (`<runId>-<index>`) unless target.requestIdPrefix is set. */
  runId: Type.String(),
  target: TargetConfigSchema,
  workload: WorkloadConfigSchema,
  dispatch: DispatchConfigSchema,
  limits: LimitsConfigSchema,
  evidence: EvidenceConfigSchema,
  accuracy: AccuracyConfigSchema,
  output: OutputConfigSchema,
});
export type RunConfig = Static<typeof RunConfigSchema>;

export const DEFAULT_ASR_MODEL = 'openai/whisper-large-v3';
export const DEFAULT_ASR_CONCURRENCY = 4;
export const DEFAULT_ASR_TIMEOUT_S = 120;
export const DEFAULT_ASR_PYTHON = 'python3';
export const DEFAULT_LOCAL_ASR_CONCURRENCY = 1;
export const DEFAULT_ASR_START_TIMEOUT_S = 1800;

/**
 * The flat object a run's config was recorded and reported as before the
 * groups (the dashboard's stored `config`, `bench --report-to`'s `config`):
 * the wire and stored runs keep that shape, from this one mapping. Keys in
 * the order the CLI always wrote them; an undefined field is left out of the
 * JSON as before.
 */
export function flatRunConfig(c: RunConfig): Record<string, unknown> {
  const { target: t, workload: w, dispatch: d, limits: l, evidence: e, accuracy: a, output: o } = c;
  const flat: Record<string, unknown> = {
    runId: c.runId,
    baseUrl: t.baseUrl,
    insecure: t.insecure,
    endpoint: t.endpoint,
    backend: t.backend,
    model: t.model,
    servedModelName: t.servedModelName,
    label: o.label,
    apiKey: t.apiKey,
    headers: t.headers,
    requestIdPrefix: t.requestIdPrefix,
    metadata: o.metadata,
    serverIdentity: e.serverIdentity,
    dataset: w.dataset,
    numPrompts: w.numPrompts,
    turnsPerSession: w.turnsPerSession,
    maxConcurrency: d.maxConcurrency,
    requestRate: d.requestRate,
    burstiness: d.burstiness,
    selfTimed: d.selfTimed,
    seed: w.seed,
    numWarmups: d.numWarmups,
    readyCheckTimeoutS: d.readyCheckTimeoutS,
    extraBody: w.extraBody,
    percentileMetrics: o.percentileMetrics,
    metricPercentiles: o.metricPercentiles,
    timeouts: l.timeouts,
    failFast: l.failFast,
    stopOn: l.stopOn,
    connectionMode: d.connectionMode,
    thresholds: o.thresholds,
    goodput: o.goodput,
    rampUp: d.rampUp,
    printStage: w.printStage,
    ignoreEos: w.ignoreEos,
    save: o.save,
    maxEventBytes: l.maxEventBytes,
    seedTtsEval: a.seedTtsEval,
  };
  for (const k of Object.keys(flat)) if (flat[k] === undefined) delete flat[k];
  return flat;
}
