/**
 * `stallscope bench` argv → the run configuration (shared/config/runConfig.ts),
 * its probes' settings included. Syntax errors throw a StallscopeError naming
 * the flag; semantic checks are left to the one validator
 * (shared/config/runConfigIssues.ts, called by validateBenchConfig) and what
 * needs the machine to the probe's checkServerStacks, so the CLI and the
 * dashboard refuse the same things in the same words. Values are read from
 * parseArgs typed by the flag table (benchFlags.ts): each flag has its own
 * type (string, boolean, string[]), no key is looked up as a bare string.
 *
 * Flags are read in a fixed order, so when several are wrong the first one
 * reported stays the same: target, sampling and --extra-body, rate and
 * burstiness, then the config's fields in order, the server stacks last.
 */
import { BACKEND_INFO, isBackendName } from '../../shared/config/backends.ts';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { StallscopeError } from '../../shared/errors.ts';
import { detectCiMetadata } from '../../shared/runInfo/ciMetadata.ts';
import {
  DEFAULT_ASR_CONCURRENCY,
  DEFAULT_ASR_MODEL,
  DEFAULT_ASR_PYTHON,
  DEFAULT_LOCAL_ASR_CONCURRENCY,
  type RunConfig,
  type DatasetConfig,
  type SeedTtsEvalConfig,
} from '../../shared/config/runConfig.ts';
import { serverStacksFromFlags } from '../engine/probes/serverStacks/flags.ts';
import type { LivenessSettings } from '../../shared/config/runConfig.ts';
import { integer, list, number, optInteger, optNumber, pairs, usage } from '../common/flagValues.ts';
import { ALL_BENCH_OPTIONS, IGNORED_VLLM_NOTES } from './benchFlags.ts';
import { expandMultiValueFlags, joinNegativeValues, pyFloatValue } from './argparseCompat.ts';
import { trimTrailingSlashes } from '../../shared/text.ts';

export interface ParsedBench {
  help: boolean;
  /** The run configuration; `evidence.serverStacks` is `--server-pid` with its capture flags (none without the pid). */
  config: RunConfig;
  /** One line per accepted-but-ignored vLLM flag. */
  warnings: string[];
  reportTo: string | null;
  disableProgress: boolean;
  /** `--junit-xml` and `--ci-summary`: what the CLI writes for the CI after the run (server/cli/ciOutput/). */
  ciOutput: { junitXml: string | null; summary: boolean };
}

/** Every flag's value, typed by the flag table. */
type BenchValues = ReturnType<typeof parseArgv>;
type Env = Record<string, string | undefined>;

function parseArgv(argv: string[]) {
  try {
    return parseArgs({
      args: joinNegativeValues(expandMultiValueFlags(argv), ALL_BENCH_OPTIONS),
      options: ALL_BENCH_OPTIONS,
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    return usage((e as Error).message, 'argv');
  }
}

export function parseBenchArgs(argv: string[], env: Env = {}): ParsedBench {
  const v = parseArgv(argv);
  const warnings = ignoredFlagWarnings(v);
  const runId = v['run-id'] ?? `bench-${randomBytes(4).toString('hex')}`;
  const baseUrl = trimTrailingSlashes(v['base-url'] ?? `http://${v.host ?? '127.0.0.1'}:${v.port ?? '8000'}`);
  const model = v.model;
  if (!model) return usage('--model is required', '--model');
  const extraBody = extraBodyOf(v);
  const rateText = v['request-rate'] ?? 'inf';
  const requestRate = rateText.toLowerCase() === 'inf' ? ('inf' as const) : number(rateText, '--request-rate');
  const burstiness = optNumber(v.burstiness, '--burstiness') ?? 1;
  // Read in the order the flags always were, so the first refusal stays the same; then put in groups.
  const target = {
    baseUrl,
    insecure: v.insecure ? true : undefined,
    // Each backend's own endpoint unless one is given (an unknown backend is refused by the validator).
    endpoint: v.endpoint ?? defaultEndpointOf(v.backend ?? 'openai-chat-omni'),
    backend: v.backend ?? 'openai-chat-omni',
    model,
    servedModelName: v['served-model-name'],
  };
  const label = v.label ?? null;
  const apiKey = env.OPENAI_API_KEY ?? null;
  const headers = pairs(v.header, '--header');
  const requestIdPrefix = v['request-id-prefix'];
  // Where the run ran, from the CI's own variables (docs/design.md#ci-metadata); --metadata wins.
  const metadata = { ...(v['no-ci-metadata'] ? {} : detectCiMetadata(env)), ...pairs(v.metadata, '--metadata') };
  const workload = {
    dataset: dataset(v),
    numPrompts: optInteger(v['num-prompts'], '--num-prompts') ?? 1000,
    turnsPerSession: optInteger(v['seed-tts-turns-per-session'], '--seed-tts-turns-per-session'),
  };
  const maxConcurrency = optInteger(v['max-concurrency'], '--max-concurrency') ?? null;
  const selfTimed = v['self-timed'] ? true : undefined;
  const seed = optInteger(v.seed, '--seed') ?? 0;
  const numWarmups = optInteger(v['num-warmups'], '--num-warmups') ?? 0;
  const readyCheckTimeoutS = optNumber(v['ready-check-timeout-sec'], '--ready-check-timeout-sec') ?? 0;
  const percentileMetrics = list(v['percentile-metrics'] ?? 'ttft,tpot,itl,e2el,audio_ttfp,audio_rtf');
  const metricPercentiles = list(v['metric-percentiles'] ?? '99').map((p) => number(p, '--metric-percentiles'));
  const limits = {
    timeouts: {
      totalS: optNumber(v['omni-request-timeout-s'], '--omni-request-timeout-s'),
      firstByteS: optNumber(v['first-byte-timeout-s'], '--first-byte-timeout-s'),
      idleS: optNumber(v['idle-timeout-s'], '--idle-timeout-s'),
    },
    failFast: Boolean(v['omni-fail-fast-on-timeout']),
    ...(v['stop-on']?.length ? { stopOn: v['stop-on'] } : {}),
  };
  const connectionMode = v['keep-alive'] ? ('keep_alive' as const) : ('per_request' as const);
  const thresholds = v.threshold ?? [];
  const goodputSlos = goodput(v.goodput);
  const ramp = rampUp(v, warnings);
  const save = saveOf(v);
  const seedTtsEvalConfig = seedTtsEval(v, env, warnings);
  const serverStacks = serverStacksFromFlags({
    pid: v['server-pid'],
    captureOnTimeout: Boolean(v['capture-server-stacks']),
    stallAfterS: v['server-stall-after-s'],
    native: Boolean(v['server-stacks-native']),
    pySpy: v['py-spy'],
    rulesFile: v['server-phase-rules'],
    liveness: Boolean(v['probe-liveness-at-stall']),
    gpuState: v['gpu-state-at-stall'] ? true : v['no-gpu-state-at-stall'] ? false : undefined,
    gpuStateBoth: Boolean(v['gpu-state-at-stall'] && v['no-gpu-state-at-stall']),
    gpuSmi: v['gpu-smi'],
    requireStacks: Boolean(v['require-server-stacks']),
  });
  const config: RunConfig = {
    runId,
    target: { ...target, apiKey, headers, requestIdPrefix },
    workload: {
      ...workload,
      seed,
      extraBody,
      printStage: v['print-stage'] ? true : undefined,
      ignoreEos: v['ignore-eos'] ? true : undefined,
    },
    dispatch: {
      maxConcurrency,
      requestRate,
      burstiness,
      selfTimed,
      rampUp: ramp,
      numWarmups,
      readyCheckTimeoutS,
      connectionMode,
    },
    limits,
    evidence: { ...(serverStacks ? { serverStacks } : {}), liveness: livenessOf(v) },
    accuracy: { seedTtsEval: seedTtsEvalConfig },
    output: { label, metadata, save, percentileMetrics, metricPercentiles, thresholds, goodput: goodputSlos },
  };
  return {
    help: Boolean(v.help),
    config,
    warnings,
    reportTo: v['report-to'] ?? null,
    disableProgress: Boolean(v['disable-tqdm']),
    ciOutput: { junitXml: junitXmlOf(v['junit-xml']), summary: Boolean(v['ci-summary']) },
  };
}

/** `--junit-xml FILE`: a file name, refused empty (it would be written nowhere, at the end of a long run). */
function junitXmlOf(file: string | undefined): string | null {
  if (file === undefined) return null;
  if (file.trim() === '') return usage('--junit-xml needs a file name', '--junit-xml');
  return file;
}

/** `--probe-liveness-at-stall` and the silence that also starts it (`--server-stall-after-s`, > 0). */
function livenessOf(v: BenchValues): LivenessSettings {
  if (!v['probe-liveness-at-stall']) return { enabled: false };
  const stallAfterS = optNumber(v['server-stall-after-s'], '--server-stall-after-s');
  if (stallAfterS !== undefined && !(stallAfterS > 0))
    usage(`--server-stall-after-s must be > 0 seconds (got ${stallAfterS})`, '--server-stall-after-s');
  return { enabled: true, ...(stallAfterS !== undefined ? { stallAfterS } : {}) };
}

/** One warning per ignored vLLM flag given, then --print-stage's. */
function ignoredFlagWarnings(v: BenchValues): string[] {
  const warnings: string[] = [];
  // parseArgs sets a key only for a flag that was given.
  for (const [name, note] of Object.entries(IGNORED_VLLM_NOTES)) {
    if (Object.hasOwn(v, name)) warnings.push(`warning: --${name} is accepted for compatibility and ignored: ${note}`);
  }
  if (v['print-stage'])
    warnings.push(
      'warning: --print-stage: stage metrics are requested and kept per request, but the per-stage block is not printed',
    );
  return warnings;
}

/** The sampling flags vLLM merges under --extra-body, with the body key each sets; `true` for an integer. */
const SAMPLING = [
  ['temperature', 'temperature', false],
  ['top-p', 'top_p', false],
  ['top-k', 'top_k', true],
  ['min-p', 'min_p', false],
  ['frequency-penalty', 'frequency_penalty', false],
  ['presence-penalty', 'presence_penalty', false],
  ['repetition-penalty', 'repetition_penalty', false],
] as const;

/** `--extra-body` with the sampling flags under it, as vLLM merges them: {**sampling, **extra_body}. */
function extraBodyOf(v: BenchValues): Record<string, unknown> | undefined {
  const sampling: Record<string, unknown> = {};
  for (const [flag, key, int] of SAMPLING) {
    const text = v[flag];
    if (text !== undefined) sampling[key] = int ? integer(text, `--${flag}`) : number(text, `--${flag}`);
  }
  let extraBody: Record<string, unknown> | undefined;
  const text = v['extra-body'];
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new StallscopeError(
        'CONFIG_EXTRA_BODY',
        `--extra-body is not JSON: ${(e as Error).message}`,
        '--extra-body',
      );
    }
    if (!isObject(parsed)) {
      throw new StallscopeError('CONFIG_EXTRA_BODY', '--extra-body must be a JSON object', '--extra-body');
    }
    extraBody = parsed;
  }
  if (Object.keys(sampling).length > 0) extraBody = { ...sampling, ...(extraBody ?? {}) };
  return extraBody;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return Boolean(x) && typeof x === 'object' && !Array.isArray(x);
}

function saveOf(v: BenchValues): RunConfig['output']['save'] {
  if (!v['save-result'] && !v['append-result'] && !v['result-filename']) return null;
  return {
    dir: v['result-dir'] ?? '.',
    filename: v['result-filename'],
    detailed: Boolean(v['save-detailed']),
    append: Boolean(v['append-result']),
  };
}

function dataset(v: BenchValues): DatasetConfig {
  const name = v['dataset-name'] ?? 'random';
  switch (name) {
    case 'random':
      return {
        name,
        inputLen: optInteger(v['random-input-len'], '--random-input-len') ?? 1024,
        outputLen: optInteger(v['random-output-len'], '--random-output-len') ?? 128,
        rangeRatio: optNumber(v['random-range-ratio'], '--random-range-ratio'),
      };
    case 'seed-tts':
      return {
        name,
        path: v['seed-tts-root'] ?? v['dataset-path'] ?? '',
        locale: v['seed-tts-locale'] ?? 'en',
        // As vLLM-Omni: --output-len, else --hf-output-len, else the dataset's default (2048).
        outputLen:
          v['output-len'] !== undefined
            ? integer(v['output-len'], '--output-len')
            : optInteger(v['hf-output-len'], '--hf-output-len'),
        noOversample: Boolean(v['no-oversample']),
        disableShuffle: Boolean(v['disable-shuffle']),
        systemPrompt: v['seed-tts-system-prompt'],
        fileRefAudio: v['seed-tts-file-ref-audio'] ? true : undefined,
      };
    case 'trace':
      return { name, path: v['dataset-path'] ?? '' };
    default: {
      const why = UPSTREAM_ONLY_DATASETS[name];
      if (why)
        return usage(`--dataset-name '${name}' is vLLM-Omni's ${why}; stallscope does not run it`, '--dataset-name');
      return usage(`--dataset-name '${name}' is not one of random, seed-tts, trace`, '--dataset-name');
    }
  }
}

/** Newer vLLM-Omni datasets refused by name (docs/design.md#realtime): evaluations, not load. */
const UPSTREAM_ONLY_DATASETS: Record<string, string> = {
  'seed-tts-text': 'text-only Seed-TTS accuracy set (use --dataset-name seed-tts for Seed-TTS load)',
  omniinteract: 'video+audio duplex interaction evaluation, scored by a judge model',
  'omni-duplex-eval': '`vllm bench omni-duplex-eval` duplex evaluation, scored by a judge model',
};

/**
 * `--ramp-up-strategy` with its two RPS flags (ints, as argparse reads them).
 * The strategy without both rates is refused; rates without a strategy are
 * ignored, as vLLM ignores them, with a warning.
 */
function rampUp(v: BenchValues, warnings: string[]): RunConfig['dispatch']['rampUp'] {
  const strategy = v['ramp-up-strategy'];
  const start = v['ramp-up-start-rps'];
  const end = v['ramp-up-end-rps'];
  if (strategy === undefined) {
    if (start !== undefined || end !== undefined)
      warnings.push('warning: --ramp-up-start-rps/--ramp-up-end-rps do nothing without --ramp-up-strategy');
    return undefined;
  }
  if (strategy !== 'linear' && strategy !== 'exponential')
    return usage(`'${strategy}' is not linear or exponential`, '--ramp-up-strategy');
  if (start === undefined)
    return usage('--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps', '--ramp-up-start-rps');
  if (end === undefined)
    return usage('--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps', '--ramp-up-end-rps');
  return {
    strategy,
    startRps: integer(start, '--ramp-up-start-rps'),
    endRps: integer(end, '--ramp-up-end-rps'),
  };
}

/** `--goodput KEY:VALUE` pairs as vLLM's parse_goodput reads them (value in ms); names are checked by validate. */
function goodput(items: string[] | undefined): Record<string, number> | undefined {
  if (!items || items.length === 0) return undefined;
  const out: Record<string, number> = {};
  for (const item of items) {
    const parts = item.split(':');
    const value = parts.length === 2 ? pyFloatValue(parts[1]) : NaN;
    if (!parts[0] || Number.isNaN(value))
      usage(
        `'${item}': give service level objectives as KEY:VALUE pairs, the key a metric name (ttft, tpot, e2el) and the value a number in milliseconds`,
        '--goodput',
      );
    out[parts[0]] = value;
  }
  return out;
}

/** The recogniser's flags: alone (without the gate) they do nothing, with a warning. */
const ASR_FLAGS = [
  'asr-url',
  'asr-model',
  'asr-concurrency',
  'asr-header',
  'asr-timeout-s',
  'asr-python',
  'asr-start-timeout-s',
  'seed-tts-wer-save-items',
  'seed-tts-save-audio-dir',
] as const;

/**
 * `--seed-tts-wer-eval` (or vLLM-Omni's SEED_TTS_WER_EVAL=1) with its
 * recogniser: the transcription server at `--asr-url`, or — as vLLM-Omni
 * transcribes in its own process — stallscope's own, run by `--asr-python`
 * (docs/design.md#local-asr). The ASR flags alone do nothing, with a warning.
 */
function seedTtsEval(v: BenchValues, env: Env, warnings: string[]): SeedTtsEvalConfig | null {
  const truthy = (x: string | undefined): boolean => ['1', 'true', 'yes', 'on'].includes((x ?? '').toLowerCase());
  const byFlag = Boolean(v['seed-tts-wer-eval']);
  const byEnv = truthy(env.SEED_TTS_WER_EVAL) && (v['dataset-name'] ?? 'random') === 'seed-tts';
  if (!byFlag && !byEnv) {
    const given = ASR_FLAGS.filter((f) => v[f] !== undefined);
    if (given.length > 0)
      warnings.push(`warning: ${given.map((f) => `--${f}`).join(', ')}: no effect without --seed-tts-wer-eval`);
    return null;
  }
  const asrUrl = v['asr-url'];
  if (asrUrl !== undefined) {
    const local = (['asr-python', 'asr-start-timeout-s'] as const).filter((f) => v[f] !== undefined);
    if (local.length > 0)
      warnings.push(
        `warning: ${local.map((f) => `--${f}`).join(', ')}: no effect with --asr-url (its server is yours)`,
      );
  }
  return {
    ...(asrUrl !== undefined
      ? { asrUrl: trimTrailingSlashes(asrUrl) }
      : {
          localAsr: {
            python: v['asr-python'] ?? DEFAULT_ASR_PYTHON,
            startTimeoutS: optNumber(v['asr-start-timeout-s'], '--asr-start-timeout-s'),
          },
        }),
    // As vLLM-Omni: SEED_TTS_HF_WHISPER_MODEL names the Whisper model when no flag does.
    asrModel: v['asr-model'] ?? (env.SEED_TTS_HF_WHISPER_MODEL?.trim() || DEFAULT_ASR_MODEL),
    asrConcurrency:
      optInteger(v['asr-concurrency'], '--asr-concurrency') ??
      (asrUrl !== undefined ? DEFAULT_ASR_CONCURRENCY : DEFAULT_LOCAL_ASR_CONCURRENCY),
    asrHeaders: pairs(v['asr-header'], '--asr-header'),
    asrTimeoutS: optNumber(v['asr-timeout-s'], '--asr-timeout-s'),
    saveItems: Boolean(v['seed-tts-wer-save-items']) || truthy(env.SEED_TTS_WER_SAVE_ITEMS),
    saveAudioDir: v['seed-tts-save-audio-dir'] ?? (env.SEED_TTS_WER_SAVE_AUDIO_DIR || null),
  };
}

/** The endpoint of a backend when --endpoint is not given: chat's for a name validate.ts will refuse. */
function defaultEndpointOf(backend: string): string {
  return isBackendName(backend)
    ? BACKEND_INFO[backend].defaultEndpoint
    : BACKEND_INFO['openai-chat-omni'].defaultEndpoint;
}
