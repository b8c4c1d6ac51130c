/**
 * RunSpec: what the dashboard's "New run" form submits to `POST /api/runs`.
 *
 * One TypeBox schema, three uses: Fastify validates request bodies with it,
 * the web form validates with it before submit (`runSpecIssues`), and the
 * TypeScript type comes from `Static`. Cross-field rules that JSON Schema
 * cannot express (fail-fast needs a timeout, self-timed needs a trace) are the
 * one run configuration validator's (runConfigIssues.ts), which `runSpecIssues`
 * runs on the spec's run configuration: the form, the server and the CLI say
 * the same thing.
 */
import { BACKENDS } from './backends.ts';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { memoryBudgetIssue } from './memoryBudget.ts';
import { schemaMessage, type SchemaError } from './specMessages.ts';
import { C2W_PHASES } from '../types.ts';
import type { ErrorCode } from '../errors.ts';
import { DEFAULT_TOTAL_TIMEOUT_S, effectiveTotalS } from './timeouts.ts';
import { MAX_STOP_RULES } from './stopRules.ts';
import { DEFAULT_ASR_CONCURRENCY, DEFAULT_ASR_MODEL, type RunConfig } from './runConfig.ts';
import { runConfigIssues } from './runConfigIssues.ts';
import { specName } from './runConfigNames.ts';
import { trimTrailingSlashes } from '../text.ts';

const PositiveSeconds = (description: string) => Type.Number({ exclusiveMinimum: 0, description });

/** One entry of the embedded repro server's fault plan (`--fault PHASE:KIND[:after=N][:p=P][:min-inflight=C]`). */
export const FaultSpecSchema = Type.Object(
  {
    phase: Type.Enum(C2W_PHASES, { description: 'Code2Wav phase in which the operation hangs' }),
    kind: Type.Union([Type.Literal('block'), Type.Literal('spin'), Type.Literal('slow')], {
      description: 'block: waits forever; spin: busy loop; slow: extra delay then completes',
    }),
    after: Type.Optional(Type.Integer({ minimum: 1, description: 'Trigger at the Nth operation (1 = the first)' })),
    p: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Trigger probability per operation' })),
    minInflight: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Only when at least this many requests are in flight' }),
    ),
  },
  { additionalProperties: false },
);
export type FaultSpec = Static<typeof FaultSpecSchema>;

/** The reproduction server launched by the dashboard as a child process for this run. */
export const EmbeddedTargetSchema = Type.Object(
  {
    kind: Type.Literal('embedded'),
    faults: Type.Array(FaultSpecSchema, { maxItems: 16, default: [] }),
    /** 0 = watchdog off. Keep it well below `timeouts.totalS` so the stack exists before the breaker trips. */
    watchdogTimeoutS: Type.Number({
      minimum: 0,
      maximum: 86400,
      default: 0,
      description: 'Code2Wav no-progress watchdog timeout in seconds; 0 = off',
    }),
    workers: Type.Integer({
      minimum: 1,
      maximum: 16,
      default: 1,
      description: 'Code2Wav worker threads (stage replicas)',
    }),
    maxBatch: Type.Integer({ minimum: 1, maximum: 64, default: 4, description: 'Code2Wav batch size bound' }),
    tokenRate: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Thinker text tokens per second' })),
    seed: Type.Optional(Type.Integer({ description: 'Seed of the fault plan and the synthetic model' })),
  },
  { additionalProperties: false },
);

/** "Capture server stacks" of a URL target: present = capture at the first timeout. */
export const ServerStacksSpecSchema = Type.Object(
  {
    pid: Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('auto')], {
      description: 'Server process id, or auto: the owner of the base URL port (loopback only)',
    }),
    stallAfterS: Type.Optional(
      PositiveSeconds('Also capture when a request got no SSE event for this long (at most 5 times)'),
    ),
    native: Type.Optional(Type.Boolean({ description: 'Include native frames (py-spy --native)' })),
  },
  { additionalProperties: false },
);

/** Any OpenAI-compatible omni server, e.g. a real vLLM-Omni. */
export const UrlTargetSchema = Type.Object(
  {
    kind: Type.Literal('url'),
    baseUrl: Type.String({
      pattern: '^https?://[^\\s]+$',
      maxLength: 2048,
      description: 'Base URL, e.g. http://127.0.0.1:8000',
    }),
    apiKey: Type.Optional(Type.String({ maxLength: 4096 })),
    insecure: Type.Optional(
      Type.Boolean({ description: 'https: skip certificate checks (self-signed CI servers), as --insecure' }),
    ),
    /** py-spy captures of the server's process tree at the first timeout (docs/design.md#server-stacks). */
    serverStacks: Type.Optional(ServerStacksSpecSchema),
  },
  { additionalProperties: false },
);

export const TargetSpecSchema = Type.Union([EmbeddedTargetSchema, UrlTargetSchema]);
export type TargetSpec = Static<typeof TargetSpecSchema>;

export const DatasetSpecSchema = Type.Union([
  Type.Object(
    {
      name: Type.Literal('random'),
      inputLen: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 64 }),
      outputLen: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 32 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      name: Type.Literal('seed-tts'),
      path: Type.String({ minLength: 1, maxLength: 4096, description: 'Directory holding {locale}/meta.lst' }),
      locale: Type.String({ minLength: 1, maxLength: 16, default: 'en' }),
      noOversample: Type.Boolean({ default: true }),
      outputLen: Type.Optional(Type.Integer({ minimum: 1 })),
      /** The Seed-TTS WER gate (`--seed-tts-wer-eval`): transcribe every answer after the run (docs/design.md#accuracy-gate). */
      werEval: Type.Optional(
        Type.Object(
          {
            enabled: Type.Optional(Type.Boolean({ description: 'Transcribe every answer and compute the WER' })),
            asrUrl: Type.Optional(
              Type.String({
                maxLength: 2048,
                description: 'Base URL of an OpenAI-compatible transcription server (/v1/audio/transcriptions)',
              }),
            ),
            asrModel: Type.Optional(Type.String({ minLength: 1, maxLength: 256, default: 'openai/whisper-large-v3' })),
            asrConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 256, default: 4 })),
            saveItems: Type.Optional(Type.Boolean({ description: 'Write seed_tts_wer_eval_items in the result' })),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      name: Type.Literal('trace'),
      path: Type.String({ minLength: 1, maxLength: 4096, description: 'JSONL trace file' }),
    },
    { additionalProperties: false },
  ),
]);
export type DatasetSpec = Static<typeof DatasetSpecSchema>;

export const RunSpecSchema = Type.Object(
  {
    label: Type.Optional(Type.String({ maxLength: 200 })),
    /** Free metadata (CI build, node, GPU/ROCm version, server commit): shown and filterable. */
    metadata: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { default: {} }),
    target: TargetSpecSchema,
    model: Type.String({ minLength: 1, maxLength: 256, default: 'openbmb/MiniCPM-o-4_5' }),
    backend: Type.Enum(BACKENDS, { default: 'openai-chat-omni' }),
    endpoint: Type.String({ pattern: '^/', maxLength: 512, default: '/v1/chat/completions' }),
    dataset: DatasetSpecSchema,
    numPrompts: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1088 }),
    /** Realtime backends: consecutive prompts per WebSocket session (`--seed-tts-turns-per-session`). */
    turnsPerSession: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Realtime: prompts per WebSocket session, each one turn (max concurrency counts sessions)',
      }),
    ),
    maxConcurrency: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()], { default: 10 }),
    requestRate: Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Literal('inf')], { default: 'inf' }),
    burstiness: Type.Number({ exclusiveMinimum: 0, default: 1 }),
    selfTimed: Type.Boolean({ default: false, description: 'Send each trace row at its own timestamp' }),
    rampUp: Type.Optional(
      Type.Object(
        {
          strategy: Type.Union([Type.Literal('linear'), Type.Literal('exponential')]),
          startRps: Type.Integer({ minimum: 1, description: 'Rate of the first request (req/s)' }),
          endRps: Type.Integer({ minimum: 1, description: 'Rate of the last request (req/s)' }),
        },
        {
          additionalProperties: false,
          description: 'Ramp the rate from start to end over the run (request rate must be inf)',
        },
      ),
    ),
    seed: Type.Integer({
      minimum: 0,
      maximum: 4_294_967_295,
      default: 0,
      description: 'Seeds the arrival schedule (numpy, as vLLM) and the Seed-TTS row order (Python random, as vLLM)',
    }),
    numWarmups: Type.Integer({ minimum: 0, maximum: 1000, default: 0 }),
    readyCheckTimeoutS: Type.Optional(PositiveSeconds('Retry the first request until it succeeds, up to this long')),
    extraBody: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
    timeouts: Type.Object(
      {
        /** Whole request; ≤ 0 restores vLLM's legacy 6 h. */
        totalS: Type.Number({
          default: DEFAULT_TOTAL_TIMEOUT_S,
          description: 'Per-request total timeout (s); <= 0 = legacy 6 h',
        }),
        firstByteS: Type.Optional(PositiveSeconds('Timeout until the first byte (s)')),
        idleS: Type.Optional(PositiveSeconds('Timeout without an SSE event (s)')),
      },
      { additionalProperties: false, default: {} },
    ),
    failFast: Type.Boolean({ default: false, description: 'Trip the breaker on the first structural timeout' }),
    /** Stop rules (docs/design.md#stop-rules), checked by the same rule as `--stop-on` (shared/config/stopRules.ts). */
    stopOn: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        maxItems: MAX_STOP_RULES,
        default: [],
        description:
          'Stop the run (fail closed) when any rule trips: timeouts>=N, errors>=N, consecutive_errors>=N, ' +
          'error_rate>X[,window=W][,min=M], no_progress>=S (no byte for S s), or a result key live (p99_ttft_ms>2000,min=20)',
      }),
    ),
    /** What the server still answers at the first stall (docs/design.md#liveness-at-stall). */
    livenessAtStall: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'At the first stall, ask the server /health, /v1/models and one short text-only request',
      }),
    ),
    connectionMode: Type.Optional(
      Type.Union([Type.Literal('per_request'), Type.Literal('keep_alive')], {
        default: 'per_request',
        description:
          'per_request: a new TCP connection per request, as vLLM-Omni (TTFT includes the connect); keep_alive: reuse',
      }),
    ),
    thresholds: Type.Array(
      Type.String({ pattern: '^\\s*[A-Za-z0-9_.]+\\s*(<=|>=|==|!=|<|>)\\s*-?[0-9.eE+-]+\\s*$', maxLength: 200 }),
      { maxItems: 64, default: [] },
    ),
    goodput: Type.Optional(
      Type.Object(
        {
          ttft: Type.Optional(Type.Number({ minimum: 0, description: 'TTFT SLO (ms)' })),
          tpot: Type.Optional(Type.Number({ minimum: 0, description: 'TPOT SLO (ms)' })),
          e2el: Type.Optional(Type.Number({ minimum: 0, description: 'E2EL SLO (ms)' })),
        },
        {
          additionalProperties: false,
          description: 'Service level objectives (--goodput); request_goodput counts the requests meeting all of them',
        },
      ),
    ),
    percentileMetrics: Type.Array(Type.String({ maxLength: 32 }), {
      default: ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf'],
      maxItems: 16,
    }),
    metricPercentiles: Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 100 }), { default: [99], maxItems: 16 }),
  },
  { additionalProperties: false },
);
export type RunSpec = Static<typeof RunSpecSchema>;

/** A problem with a spec, named by its dotted field path (e.g. `timeouts.totalS`). */
export interface SpecIssue {
  field: string;
  message: string;
  /** `warning`s do not block submission. */
  severity: 'error' | 'warning';
  /** The refusal's code when it is not CONFIG_INVALID (shared/errors.ts): the memory budget's. */
  code?: ErrorCode;
}

const compiled = Compile(RunSpecSchema);
/**
 * The plain fields, each checked on its own: TypeBox reports at most 8 errors
 * per check, and one field (a union tries every branch) can spend them all,
 * hiding the errors of the fields after it. The unions are checked below,
 * branch by branch.
 */
const PLAIN_FIELDS = Object.entries(RunSpecSchema.properties)
  .filter(([key]) => key !== 'target' && key !== 'dataset')
  .map(([key, schema]) => ({ key, check: Compile(schema) }));
const REQUIRED = new Set<string>(RunSpecSchema.required ?? []);

function plainFieldIssues(value: unknown): SpecIssue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [{ field: '', message: 'must be a JSON object', severity: 'error' }];
  const obj = value as Record<string, unknown>;
  const out: SpecIssue[] = [];
  for (const { key, check } of PLAIN_FIELDS) {
    if (obj[key] === undefined) {
      if (REQUIRED.has(key)) out.push({ field: key, message: 'is required', severity: 'error' });
    } else if (!check.Check(obj[key])) out.push(...schemaIssues(check, obj[key], key, []));
  }
  for (const key of Object.keys(obj))
    if (!(key in RunSpecSchema.properties))
      out.push({ field: key, message: 'is not a known field', severity: 'error' });
  return out;
}

/** The discriminated unions, checked branch by branch so errors name the chosen branch only. */
const BRANCHES: Record<'target' | 'dataset', { tag: string; byTag: Record<string, ReturnType<typeof Compile>> }> = {
  target: { tag: 'kind', byTag: { embedded: Compile(EmbeddedTargetSchema), url: Compile(UrlTargetSchema) } },
  dataset: {
    tag: 'name',
    byTag: Object.fromEntries(DatasetSpecSchema.anyOf.map((s) => [s.properties.name.const as string, Compile(s)])),
  },
};

/** `/timeouts/totalS` → `timeouts.totalS`. */
export function pointerToField(pointer: string): string {
  return pointer.replace(/^\//, '').split('/').filter(Boolean).join('.');
}

function join(prefix: string, field: string): string {
  return prefix && field ? `${prefix}.${field}` : prefix || field;
}

/** Schema errors as one issue per field (a missing property becomes its own field), in words (specMessages.ts). */
function schemaIssues(check: ReturnType<typeof Compile>, value: unknown, prefix: string, skip: string[]): SpecIssue[] {
  const byField = new Map<string, SchemaError[]>();
  const push = (field: string, e: SchemaError) => {
    if (skip.some((s) => field === s || field.startsWith(`${s}.`))) return;
    const list = byField.get(field);
    if (list) list.push(e);
    else byField.set(field, [e]);
  };
  for (const e of check.Errors(value)) {
    const at = join(prefix, pointerToField(e.instancePath));
    const params = e.params as { requiredProperties?: string[]; additionalProperties?: string[] };
    if (e.keyword === 'boolean') continue;
    if (e.keyword === 'required' && params.requiredProperties) {
      for (const p of params.requiredProperties) push(join(at, p), { keyword: 'required', params: {} });
    } else if (e.keyword === 'additionalProperties' && params.additionalProperties) {
      for (const p of params.additionalProperties) push(join(at, p), { keyword: 'additionalProperties', params: {} });
    } else push(at, { keyword: e.keyword, params: e.params });
  }
  return [...byField].map(([field, errors]) => ({ field, message: schemaMessage(field, errors), severity: 'error' }));
}

const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The rules JSON Schema cannot express: the one validator's
 * (runConfigIssues.ts), run on the spec's run configuration, each issue named
 * by its RunSpec field. They run on a partial spec too; a rule reading a field
 * already in error is skipped.
 */
function crossFieldIssues(
  value: unknown,
  inError: ReadonlySet<string>,
): { issues: SpecIssue[]; config: RunConfig | null } {
  const clashes = (field: string) =>
    [...inError].some((e) => e === field || e.startsWith(`${field}.`) || field.startsWith(`${e}.`) || e === '');
  const skip = (paths: readonly string[]) => paths.some((p) => clashes(specName(p)));
  let config: RunConfig;
  const out: SpecIssue[] = [];
  try {
    config = specToRunConfig(withRunSpecDefaults(value) as RunSpec, 'spec');
    for (const i of runConfigIssues(config, specName, { skip }))
      out.push({
        field: specName(i.path),
        message: i.message,
        severity: 'error',
        ...(i.code !== 'CONFIG_INVALID' ? { code: i.code } : {}),
      });
  } catch {
    // A spec too broken to read as a run: its schema errors say why.
    return { issues: watchdogWarning(value, inError), config: null };
  }
  out.push(...watchdogWarning(value, inError));
  return { issues: out, config };
}

/** The embedded repro server's watchdog should fire well before the request timeout (the RunSpec's own rule). */
function watchdogWarning(value: unknown, inError: ReadonlySet<string>): SpecIssue[] {
  const v = rec(value);
  const timeouts = rec(v.timeouts) as Partial<RunSpec['timeouts']>;
  const target = rec(v.target);
  const ok = (...fields: string[]) => fields.every((f) => !inError.has(f));
  const timeoutsOk =
    typeof timeouts.totalS === 'number' && ok('timeouts', 'timeouts.totalS', 'timeouts.firstByteS', 'timeouts.idleS');
  const watchdog = target.watchdogTimeoutS;
  if (
    target.kind === 'embedded' &&
    typeof watchdog === 'number' &&
    watchdog > 0 &&
    timeoutsOk &&
    ok('target.watchdogTimeoutS')
  ) {
    const total = effectiveTotalS(timeouts.totalS);
    if (watchdog >= total * 0.5) {
      return [
        {
          field: 'target.watchdogTimeoutS',
          message: `watchdog timeout ${watchdog}s is not well below the request timeout ${total}s: the stack would come after the breaker trips`,
          severity: 'warning',
        },
      ];
    }
  }
  return [];
}

/**
 * Every issue with a (possibly partial) spec: schema errors first, then the
 * cross-field rules (always, not only on a schema-valid spec). Empty array (or
 * only warnings) = submittable.
 */
export function runSpecIssues(value: unknown): SpecIssue[] {
  return checkRunSpec(value).issues;
}

/**
 * A spec's issues and, when it has no error, the run configuration it was
 * checked as (the route hands that one object to the run manager: built once).
 */
export function checkRunSpec(value: unknown): { issues: SpecIssue[]; config: RunConfig | null } {
  const out: SpecIssue[] = [];
  if (!compiled.Check(value)) {
    out.push(...plainFieldIssues(value));
    const obj = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    for (const [key, { tag, byTag }] of Object.entries(BRANCHES)) {
      const v = obj[key] as Record<string, unknown> | undefined;
      if (v === undefined) {
        if (typeof value === 'object' && value !== null)
          out.push({ field: key, message: 'is required', severity: 'error' });
        continue;
      }
      const branch = typeof v === 'object' && v !== null ? byTag[String(v[tag])] : undefined;
      if (!branch) {
        out.push({
          field: `${key}.${tag}`,
          message: `must be one of ${Object.keys(byTag).join(', ')}`,
          severity: 'error',
        });
      } else out.push(...schemaIssues(branch, v, key, []));
    }
  }
  const cross = crossFieldIssues(value, new Set(out.map((i) => i.field)));
  out.push(...cross.issues);
  // The memory budget reads the product of fields, so only a spec valid field by field is sized.
  if (out.every((i) => i.severity !== 'error')) {
    const budget = memoryBudgetIssue(value as RunSpec);
    if (budget) out.push({ ...budget, severity: 'error' });
  }
  return { issues: out, config: out.some((i) => i.severity === 'error') ? null : cross.config };
}

/** An embedded target's base URL until its server listens (loopback: the server-stacks rule reads it). */
export const EMBEDDED_BASE_URL = 'http://127.0.0.1';

/**
 * RunSpec → the run configuration (runConfig.ts), pure and once per run: the
 * route checks it (`checkRunSpec`) and the run manager runs that same object.
 * An embedded target's URL is only known once its reproduction server
 * listens: the config holds `EMBEDDED_BASE_URL` (loopback) until the run
 * manager sets the real one on it.
 */
export function specToRunConfig(spec: RunSpec, runId: string): RunConfig {
  const d = spec.dataset;
  const t = spec.target;
  const stacks = t.kind === 'url' ? t.serverStacks : undefined;
  const stallAfterS = stacks?.stallAfterS;
  return {
    runId,
    target: {
      baseUrl: trimTrailingSlashes(t.kind === 'url' ? t.baseUrl : EMBEDDED_BASE_URL),
      endpoint: spec.endpoint,
      backend: spec.backend,
      model: spec.model,
      apiKey: t.kind === 'url' ? (t.apiKey ?? null) : null,
      ...(t.kind === 'url' && t.insecure ? { insecure: true } : {}),
    },
    workload: {
      dataset:
        d.name === 'random'
          ? { name: 'random', inputLen: d.inputLen, outputLen: d.outputLen }
          : d.name === 'seed-tts'
            ? {
                name: 'seed-tts',
                path: d.path,
                locale: d.locale,
                noOversample: d.noOversample,
                ...(d.outputLen ? { outputLen: d.outputLen } : {}),
              }
            : { name: 'trace', path: d.path },
      numPrompts: spec.numPrompts,
      ...(spec.turnsPerSession !== undefined ? { turnsPerSession: spec.turnsPerSession } : {}),
      seed: spec.seed,
      extraBody: spec.extraBody,
    },
    dispatch: {
      maxConcurrency: spec.maxConcurrency,
      requestRate: spec.requestRate,
      burstiness: spec.burstiness,
      selfTimed: spec.selfTimed,
      ...(spec.rampUp ? { rampUp: spec.rampUp } : {}),
      numWarmups: spec.numWarmups,
      ...(spec.readyCheckTimeoutS ? { readyCheckTimeoutS: spec.readyCheckTimeoutS } : {}),
      connectionMode: spec.connectionMode ?? 'per_request',
    },
    limits: {
      timeouts: { totalS: spec.timeouts.totalS, firstByteS: spec.timeouts.firstByteS, idleS: spec.timeouts.idleS },
      failFast: spec.failFast,
      ...(spec.stopOn?.length ? { stopOn: [...spec.stopOn] } : {}),
    },
    evidence: {
      // "Capture server stacks" of a URL target: at the first structural timeout, and after the stall threshold.
      ...(stacks
        ? { serverStacks: { pid: stacks.pid, captureOnTimeout: true, stallAfterS, native: stacks.native ?? false } }
        : {}),
      // On by default (docs/design.md#liveness-at-stall); a URL target's stall threshold starts it too.
      liveness:
        spec.livenessAtStall === false
          ? { enabled: false }
          : { enabled: true, ...(stallAfterS !== undefined ? { stallAfterS } : {}) },
    },
    accuracy: {
      seedTtsEval:
        d.name === 'seed-tts' && d.werEval?.enabled
          ? {
              asrUrl: trimTrailingSlashes((d.werEval.asrUrl ?? '').trim()),
              asrModel: d.werEval.asrModel ?? DEFAULT_ASR_MODEL,
              asrConcurrency: d.werEval.asrConcurrency ?? DEFAULT_ASR_CONCURRENCY,
              saveItems: d.werEval.saveItems ?? false,
            }
          : null,
    },
    output: {
      label: spec.label ?? null,
      metadata: spec.metadata,
      save: null,
      percentileMetrics: spec.percentileMetrics,
      metricPercentiles: spec.metricPercentiles,
      thresholds: spec.thresholds,
      ...(spec.goodput ? { goodput: spec.goodput } : {}),
    },
  };
}

/** A named, ready-to-run spec (the form's presets). */
export interface Preset {
  id: string;
  title: string;
  description: string;
  spec: RunSpec;
}

/** Fills in every default the schema declares (on a copy), e.g. for a partial form state. */
export function withRunSpecDefaults(value: unknown): unknown {
  return Value.Default(RunSpecSchema, Value.Clone(value));
}
