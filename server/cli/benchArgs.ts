/**
 * `stallscope bench` argv → BenchConfig. Syntax errors throw a
 * StallscopeError naming the flag; semantic checks are left to
 * validateBenchConfig so the CLI and the dashboard refuse the same things.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { StallscopeError } from '../../shared/errors.ts';
import { detectCiMetadata } from '../../shared/ciMetadata.ts';
import {
  DEFAULT_ASR_CONCURRENCY,
  DEFAULT_ASR_MODEL,
  type BenchConfig,
  type DatasetConfig,
  type RampUp,
  type SeedTtsEvalConfig,
} from '../engine/config.ts';
import type { ServerStacksConfig } from '../engine/probes/serverStacks/config.ts';
import { allOptions, IGNORED_VLLM_FLAGS } from './benchFlags.ts';
import { expandMultiValueFlags, joinNegativeValues, pyFloatValue } from './argparseCompat.ts';

export interface ParsedBench {
  help: boolean;
  config: BenchConfig;
  /** One line per accepted-but-ignored vLLM flag. */
  warnings: string[];
  reportTo: string | null;
  disableProgress: boolean;
}

type Values = Record<string, string | boolean | string[] | undefined>;

const usage = (detail: string, flag: string): never => {
  throw new StallscopeError('CONFIG_INVALID', detail, flag);
};

export function parseBenchArgs(argv: string[], env: Record<string, string | undefined> = {}): ParsedBench {
  let values: Values;
  try {
    const options = allOptions();
    ({ values } = parseArgs({
      args: joinNegativeValues(expandMultiValueFlags(argv), options),
      options,
      strict: true,
      allowPositionals: false,
    }) as { values: Values });
  } catch (e) {
    return usage((e as Error).message, 'argv');
  }
  const str = (k: string): string | undefined => values[k] as string | undefined;
  const warnings: string[] = [];
  for (const [name, f] of Object.entries(IGNORED_VLLM_FLAGS)) {
    if (values[name] !== undefined)
      warnings.push(`warning: --${name} is accepted for compatibility and ignored: ${f.note}`);
  }

  if (values['print-stage'])
    warnings.push(
      'warning: --print-stage: stage metrics are requested and kept per request, but the per-stage block is not printed',
    );
  const runId = str('run-id') ?? `bench-${randomBytes(4).toString('hex')}`;
  const baseUrl = (str('base-url') ?? `http://${str('host') ?? '127.0.0.1'}:${str('port') ?? '8000'}`).replace(
    /\/+$/,
    '',
  );
  const model = str('model');
  if (!model) usage('--model is required', '--model');

  const sampling: Record<string, unknown> = {};
  for (const [flag, key, int] of [
    ['temperature', 'temperature', false],
    ['top-p', 'top_p', false],
    ['top-k', 'top_k', true],
    ['min-p', 'min_p', false],
    ['frequency-penalty', 'frequency_penalty', false],
    ['presence-penalty', 'presence_penalty', false],
    ['repetition-penalty', 'repetition_penalty', false],
  ] as const) {
    if (str(flag) !== undefined)
      sampling[key] = int ? integer(str(flag)!, `--${flag}`) : number(str(flag)!, `--${flag}`);
  }
  let extraBody: Record<string, unknown> | undefined;
  if (str('extra-body') !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(str('extra-body')!);
    } catch (e) {
      throw new StallscopeError(
        'CONFIG_EXTRA_BODY',
        `--extra-body is not JSON: ${(e as Error).message}`,
        '--extra-body',
      );
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new StallscopeError('CONFIG_EXTRA_BODY', '--extra-body must be a JSON object', '--extra-body');
    }
    extraBody = parsed as Record<string, unknown>;
  }
  // vLLM merges sampling flags under --extra-body: {**sampling, **extra_body}.
  if (Object.keys(sampling).length > 0) extraBody = { ...sampling, ...(extraBody ?? {}) };

  const rateStr = str('request-rate') ?? 'inf';
  const requestRate = rateStr.toLowerCase() === 'inf' ? ('inf' as const) : number(rateStr, '--request-rate');
  const burstiness = str('burstiness') === undefined ? 1 : number(str('burstiness')!, '--burstiness');
  const save =
    values['save-result'] || values['append-result'] || str('result-filename')
      ? {
          dir: str('result-dir') ?? '.',
          filename: str('result-filename'),
          detailed: Boolean(values['save-detailed']),
          append: Boolean(values['append-result']),
        }
      : null;

  const config: BenchConfig = {
    runId,
    baseUrl,
    insecure: values.insecure ? true : undefined,
    endpoint: str('endpoint') ?? '/v1/chat/completions',
    backend: str('backend') ?? 'openai-chat-omni',
    model: model!,
    servedModelName: str('served-model-name'),
    label: str('label') ?? null,
    apiKey: env.OPENAI_API_KEY ?? null,
    headers: pairs(values.header as string[] | undefined, '--header'),
    requestIdPrefix: str('request-id-prefix'),
    // Where the run ran, from the CI's own variables (docs/design.md#ci-metadata); --metadata wins.
    metadata: {
      ...(values['no-ci-metadata'] ? {} : detectCiMetadata(env)),
      ...pairs(values.metadata as string[] | undefined, '--metadata'),
    },
    dataset: dataset(values, str),
    numPrompts: str('num-prompts') === undefined ? 1000 : integer(str('num-prompts')!, '--num-prompts'),
    maxConcurrency: str('max-concurrency') === undefined ? null : integer(str('max-concurrency')!, '--max-concurrency'),
    requestRate,
    burstiness,
    selfTimed: values['self-timed'] ? true : undefined,
    seed: str('seed') === undefined ? 0 : integer(str('seed')!, '--seed'),
    numWarmups: str('num-warmups') === undefined ? 0 : integer(str('num-warmups')!, '--num-warmups'),
    readyCheckTimeoutS:
      str('ready-check-timeout-sec') === undefined
        ? 0
        : number(str('ready-check-timeout-sec')!, '--ready-check-timeout-sec'),
    extraBody,
    percentileMetrics: list(str('percentile-metrics') ?? 'ttft,tpot,itl,e2el,audio_ttfp,audio_rtf'),
    metricPercentiles: list(str('metric-percentiles') ?? '99').map((p) => number(p, '--metric-percentiles')),
    timeouts: {
      totalS: optNumber(str('omni-request-timeout-s'), '--omni-request-timeout-s'),
      firstByteS: optNumber(str('first-byte-timeout-s'), '--first-byte-timeout-s'),
      idleS: optNumber(str('idle-timeout-s'), '--idle-timeout-s'),
    },
    failFast: Boolean(values['omni-fail-fast-on-timeout']),
    connectionMode: values['keep-alive'] ? 'keep_alive' : 'per_request',
    thresholds: (values.threshold as string[] | undefined) ?? [],
    goodput: goodput(values.goodput as string[] | undefined),
    rampUp: rampUp(str, warnings),
    printStage: values['print-stage'] ? true : undefined,
    ignoreEos: values['ignore-eos'] ? true : undefined,
    save,
    seedTtsEval: seedTtsEval(values, str, env, warnings),
    serverStacks: serverStacks(values, str),
  };
  return {
    help: Boolean(values.help),
    config,
    warnings,
    reportTo: str('report-to') ?? null,
    disableProgress: Boolean(values['disable-tqdm']),
  };
}

function dataset(values: Values, str: (k: string) => string | undefined): DatasetConfig {
  const name = str('dataset-name') ?? 'random';
  switch (name) {
    case 'random':
      return {
        name,
        inputLen:
          str('random-input-len') === undefined ? 1024 : integer(str('random-input-len')!, '--random-input-len'),
        outputLen:
          str('random-output-len') === undefined ? 128 : integer(str('random-output-len')!, '--random-output-len'),
        rangeRatio: optNumber(str('random-range-ratio'), '--random-range-ratio'),
      };
    case 'seed-tts':
      return {
        name,
        path: str('seed-tts-root') ?? str('dataset-path') ?? '',
        locale: str('seed-tts-locale') ?? 'en',
        // As vLLM-Omni: --output-len, else --hf-output-len, else the dataset's default (2048).
        outputLen:
          str('output-len') !== undefined
            ? integer(str('output-len')!, '--output-len')
            : str('hf-output-len') === undefined
              ? undefined
              : integer(str('hf-output-len')!, '--hf-output-len'),
        noOversample: Boolean(values['no-oversample']),
        disableShuffle: Boolean(values['disable-shuffle']),
        systemPrompt: str('seed-tts-system-prompt'),
        fileRefAudio: values['seed-tts-file-ref-audio'] ? true : undefined,
      };
    case 'trace':
      return { name, path: str('dataset-path') ?? '' };
    default:
      return usage(`--dataset-name '${name}' is not one of random, seed-tts, trace`, '--dataset-name');
  }
}

function number(s: string, flag: string): number {
  const v = Number(s);
  if (s.trim() === '' || Number.isNaN(v)) usage(`${flag} '${s}' is not a number`, flag);
  return v;
}
function optNumber(s: string | undefined, flag: string): number | undefined {
  return s === undefined ? undefined : number(s, flag);
}
function integer(s: string, flag: string): number {
  const v = number(s, flag);
  if (!Number.isInteger(v)) usage(`${flag} '${s}' is not an integer`, flag);
  return v;
}
function list(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}
/**
 * `--ramp-up-strategy` with its two RPS flags (ints, as argparse reads them).
 * The strategy without both rates is refused; rates without a strategy are
 * ignored, as vLLM ignores them, with a warning.
 */
function rampUp(str: (k: string) => string | undefined, warnings: string[]): BenchConfig['rampUp'] {
  const strategy = str('ramp-up-strategy');
  const start = str('ramp-up-start-rps');
  const end = str('ramp-up-end-rps');
  if (strategy === undefined) {
    if (start !== undefined || end !== undefined)
      warnings.push('warning: --ramp-up-start-rps/--ramp-up-end-rps do nothing without --ramp-up-strategy');
    return undefined;
  }
  if (strategy !== 'linear' && strategy !== 'exponential')
    usage(`'${strategy}' is not linear or exponential`, '--ramp-up-strategy');
  if (start === undefined)
    usage('--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps', '--ramp-up-start-rps');
  if (end === undefined)
    usage('--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps', '--ramp-up-end-rps');
  return {
    strategy: strategy as RampUp['strategy'],
    startRps: integer(start!, '--ramp-up-start-rps'),
    endRps: integer(end!, '--ramp-up-end-rps'),
  };
}

/** `--goodput KEY:VALUE` pairs as vLLM's parse_goodput reads them (value in ms); names are checked by validate. */
function goodput(items: string[] | undefined): Record<string, number> | undefined {
  if (!items || items.length === 0) return undefined;
  const out: Record<string, number> = {};
  for (const item of items) {
    const parts = item.split(':');
    const v = parts.length === 2 ? pyFloatValue(parts[1]) : NaN;
    if (!parts[0] || Number.isNaN(v))
      usage(
        `'${item}': give service level objectives as KEY:VALUE pairs, the key a metric name (ttft, tpot, e2el) and the value a number in milliseconds`,
        '--goodput',
      );
    out[parts[0]] = v;
  }
  return out;
}

function pairs(items: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) usage(`${flag} '${item}' is not KEY=VALUE`, flag);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/**
 * `--seed-tts-wer-eval` (or vLLM-Omni's SEED_TTS_WER_EVAL=1) with its
 * recogniser: refused without `--asr-url` before anything is sent, never
 * silently skipped. The ASR flags alone do nothing, with a warning.
 */
function seedTtsEval(
  values: Values,
  str: (k: string) => string | undefined,
  env: Record<string, string | undefined>,
  warnings: string[],
): SeedTtsEvalConfig | null {
  const truthy = (v: string | undefined): boolean => ['1', 'true', 'yes', 'on'].includes((v ?? '').toLowerCase());
  const byFlag = Boolean(values['seed-tts-wer-eval']);
  const byEnv = truthy(env.SEED_TTS_WER_EVAL) && (str('dataset-name') ?? 'random') === 'seed-tts';
  const asrFlags = [
    'asr-url',
    'asr-model',
    'asr-concurrency',
    'asr-header',
    'asr-timeout-s',
    'seed-tts-wer-save-items',
    'seed-tts-save-audio-dir',
  ];
  if (!byFlag && !byEnv) {
    const given = asrFlags.filter((f) => values[f] !== undefined);
    if (given.length > 0)
      warnings.push(`warning: ${given.map((f) => `--${f}`).join(', ')}: no effect without --seed-tts-wer-eval`);
    return null;
  }
  const flag = byFlag ? '--seed-tts-wer-eval' : 'SEED_TTS_WER_EVAL=1';
  const asrUrl = str('asr-url');
  if (!asrUrl)
    usage(
      `${flag} needs --asr-url URL: the base URL of an OpenAI-compatible transcription server ` +
        `(e.g. vllm serve openai/whisper-large-v3); /v1/audio/transcriptions is appended`,
      '--seed-tts-wer-eval',
    );
  return {
    asrUrl: asrUrl!.replace(/\/+$/, ''),
    asrModel: str('asr-model') ?? DEFAULT_ASR_MODEL,
    asrConcurrency:
      str('asr-concurrency') === undefined
        ? DEFAULT_ASR_CONCURRENCY
        : integer(str('asr-concurrency')!, '--asr-concurrency'),
    asrHeaders: pairs(values['asr-header'] as string[] | undefined, '--asr-header'),
    asrTimeoutS: optNumber(str('asr-timeout-s'), '--asr-timeout-s'),
    saveItems: Boolean(values['seed-tts-wer-save-items']) || truthy(env.SEED_TTS_WER_SAVE_ITEMS),
    saveAudioDir: str('seed-tts-save-audio-dir') ?? (env.SEED_TTS_WER_SAVE_AUDIO_DIR || null),
  };
}

/**
 * `--server-pid PID|auto` with `--capture-server-stacks` / `--server-stall-after-s S`
 * (docs/design.md#server-stacks). Either of those needs the pid; the pid alone captures nothing.
 */
function serverStacks(values: Values, str: (k: string) => string | undefined): ServerStacksConfig | undefined {
  const pidStr = str('server-pid');
  const onTimeout = Boolean(values['capture-server-stacks']);
  const after = str('server-stall-after-s');
  if (pidStr === undefined) {
    if (onTimeout) usage('--capture-server-stacks needs --server-pid PID|auto', '--server-pid');
    if (after !== undefined) usage('--server-stall-after-s needs --server-pid PID|auto', '--server-pid');
    return undefined;
  }
  let pid: number | 'auto' = 'auto';
  if (pidStr !== 'auto') {
    pid = integer(pidStr, '--server-pid');
    if (pid < 1) usage(`--server-pid '${pidStr}' is not a process id or auto`, '--server-pid');
  }
  return {
    pid,
    captureOnTimeout: onTimeout,
    stallAfterS: optNumber(after, '--server-stall-after-s'),
    native: Boolean(values['server-stacks-native']),
    pySpy: str('py-spy'),
    rulesFile: str('server-phase-rules'),
  };
}
