/**
 * Refuses a configuration before anything is sent (docs/design.md#refusals).
 * Each refusal is a StallscopeError naming the offending field; the CLI maps
 * it to exit 2 and the dashboard API to a 400.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { StallscopeError } from '../../shared/errors.ts';
import { parseThreshold } from '../../shared/runInfo/verdict.ts';
import { hasEffectiveTimeout } from '../../shared/config/timeouts.ts';
import { liveMetricKeys, parseStopRule, stopRuleIssues } from '../../shared/config/stopRules.ts';
import { GOODPUT_METRICS, PERCENTILE_METRICS } from '../../shared/metrics/index.ts';
import type { BenchConfig } from './config.ts';
import { BACKENDS, endpointIssue, isBackendName } from '../../shared/config/backends.ts';
import { NUMPY_MAX_SEED } from './random/numpyLegacy.ts';
import { resultFilenameEscape } from './results/resultFile.ts';
import { isFolder, isHubDatasetId } from './datasets/hub/hubCache.ts';
import { validateRealtime } from './realtime/validate.ts';
import { headerIssue } from './transport/h1/requestHead.ts';

/** The backends a config may name (shared/config/backends.ts; each has its module in backends/). */
export const SUPPORTED_BACKENDS = BACKENDS;

const bad = (detail: string, field: string): never => {
  throw new StallscopeError('CONFIG_INVALID', detail, field);
};

export function validateBenchConfig(c: BenchConfig): void {
  if (!isBackendName(c.backend)) {
    throw new StallscopeError(
      'CONFIG_BACKEND_UNSUPPORTED',
      `'${c.backend}' (supported: ${SUPPORTED_BACKENDS.join(', ')})`,
      'backend',
    );
  }
  let url: URL;
  try {
    url = new URL(`${c.baseUrl}${c.endpoint}`);
  } catch {
    return bad(`'${c.baseUrl}${c.endpoint}' is not a URL`, 'baseUrl');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') bad(`'${c.baseUrl}' must be http(s)`, 'baseUrl');
  const wrongEndpoint = endpointIssue(c.backend, c.endpoint, url.pathname);
  if (wrongEndpoint) bad(wrongEndpoint, 'endpoint');
  if (!c.model) bad('a model name is required', 'model');
  // Checked here as the run's client checks each request's (http/h1/requestHead.ts): refused before anything is sent.
  for (const [name, value] of Object.entries(c.headers ?? {})) {
    const issue = headerIssue(name, value);
    if (issue) bad(`--header ${name}: ${issue}`, 'headers');
  }
  if (c.apiKey && headerIssue('authorization', `Bearer ${c.apiKey}`))
    bad('the API key has a control character or a character past Latin-1: it cannot go in a header', 'apiKey');
  if (!c.runId) bad('a run id is required', 'runId');
  const escape = c.save?.filename === undefined ? null : resultFilenameEscape(c.save.filename);
  if (escape) bad(`result-filename '${c.save?.filename}' ${escape}`, 'save.filename');

  if (!Number.isInteger(c.numPrompts) || c.numPrompts < 1)
    bad(`num-prompts must be an integer ≥ 1 (got ${c.numPrompts})`, 'numPrompts');
  if (c.maxConcurrency !== null && (!Number.isInteger(c.maxConcurrency) || c.maxConcurrency < 1)) {
    bad(`max-concurrency must be an integer ≥ 1 (got ${c.maxConcurrency})`, 'maxConcurrency');
  }
  if (
    c.requestRate !== 'inf' &&
    !(typeof c.requestRate === 'number' && c.requestRate > 0 && !Number.isNaN(c.requestRate))
  ) {
    bad(`request-rate must be > 0 or inf (got ${c.requestRate})`, 'requestRate');
  }
  if (!(c.burstiness > 0)) bad(`burstiness must be > 0 (got ${c.burstiness})`, 'burstiness');
  if (!Number.isInteger(c.numWarmups) || c.numWarmups < 0)
    bad(`num-warmups must be an integer ≥ 0 (got ${c.numWarmups})`, 'numWarmups');
  // vLLM seeds numpy's global RNG with it, which takes only these (np.random.seed raises otherwise).
  if (!(Number.isInteger(c.seed) && c.seed >= 0 && c.seed <= NUMPY_MAX_SEED))
    bad(`seed must be an integer between 0 and 2**32 - 1, as numpy requires (got ${c.seed})`, 'seed');
  if (c.readyCheckTimeoutS !== undefined && !(c.readyCheckTimeoutS >= 0))
    bad('ready-check-timeout-sec must be ≥ 0', 'readyCheckTimeoutS');

  if (c.maxEventBytes !== undefined && !(Number.isInteger(c.maxEventBytes) && c.maxEventBytes > 0))
    bad('maxEventBytes must be an integer > 0', 'maxEventBytes');
  validateTimeouts(c);
  if (c.selfTimed && c.dataset.name !== 'trace') {
    throw new StallscopeError('CONFIG_SELF_TIMED_NEEDS_TRACE', `dataset is '${c.dataset.name}'`, 'selfTimed');
  }
  if (
    c.extraBody !== undefined &&
    (c.extraBody === null || typeof c.extraBody !== 'object' || Array.isArray(c.extraBody))
  ) {
    throw new StallscopeError('CONFIG_EXTRA_BODY', 'must be a JSON object', 'extraBody');
  }
  for (const m of c.percentileMetrics) {
    if (!(PERCENTILE_METRICS as readonly string[]).includes(m))
      bad(`unknown metric '${m}' (known: ${PERCENTILE_METRICS.join(', ')})`, 'percentileMetrics');
  }
  for (const p of c.metricPercentiles)
    if (!(p > 0 && p <= 100)) bad(`percentile ${p} is not in (0, 100]`, 'metricPercentiles');
  for (const t of c.thresholds) {
    try {
      parseThreshold(t);
    } catch (e) {
      bad(`'${t}': ${(e as Error).message}`, 'thresholds');
    }
  }
  validateStopRules(c, c.numPrompts);
  if (c.rampUp) validateRampUp(c);
  if (c.seedTtsEval) validateSeedTtsEval(c);
  for (const [k, v] of Object.entries(c.goodput ?? {})) {
    // vLLM's check_goodput_args, same rules.
    if (!(GOODPUT_METRICS as readonly string[]).includes(k))
      bad(`unknown goodput metric '${k}' (one of ${GOODPUT_METRICS.join(', ')})`, 'goodput');
    if (!(typeof v === 'number' && v >= 0))
      bad(`goodput ${k}:${v}: the SLO must be a non-negative number of milliseconds`, 'goodput');
  }
  validateDataset(c);
  validateRealtime(c);
}

/** vLLM's ramp-up checks, plus a start of 0 (its first request would be sent at rate 0, which vLLM asserts against mid-run). */
function validateRampUp(c: BenchConfig): void {
  const r = c.rampUp!;
  if (r.strategy !== 'linear' && r.strategy !== 'exponential')
    bad(`ramp-up strategy '${String(r.strategy)}' is not linear or exponential`, 'rampUp.strategy');
  if (c.requestRate !== 'inf')
    bad('with ramp-up the rate comes from the ramp-up start and end; remove the request rate', 'requestRate');
  // A trace is self-timed unless --self-timed is explicitly off (see engine.ts arrivalSpec).
  if (c.selfTimed || (c.dataset.name === 'trace' && c.selfTimed !== false))
    bad('a self-timed trace sets its own arrival times; ramp-up cannot apply', 'rampUp');
  for (const [k, v] of [
    ['startRps', r.startRps],
    ['endRps', r.endRps],
  ] as const) {
    if (!(Number.isInteger(v) && v > 0))
      bad(`ramp-up ${k === 'startRps' ? 'start' : 'end'} RPS must be an integer > 0 (got ${v})`, `rampUp.${k}`);
  }
  if (r.startRps > r.endRps)
    bad(`ramp-up start RPS (${r.startRps}) must not exceed the end RPS (${r.endRps})`, 'rampUp.startRps');
}

/**
 * The stop rules (docs/design.md#stop-rules) against a run of `numRequests`:
 * syntax, metric names, counts and windows it could reach; a timeouts rule
 * needs an effective timeout, as fail-fast does. Run again once the dataset
 * is loaded, with its real size (runSetup.ts).
 */
export function validateStopRules(c: BenchConfig, numRequests: number): void {
  const rules = c.stopOn ?? [];
  if (!Array.isArray(rules)) bad('stop rules must be a list of rules', 'stopOn');
  const metricKeys = liveMetricKeys({
    percentileMetrics: c.percentileMetrics,
    metricPercentiles: c.metricPercentiles,
    goodput: c.goodput,
  });
  const issues = stopRuleIssues(rules, { numRequests, metricKeys });
  if (issues.length) bad(issues[0], 'stopOn');
  if (rules.some((r) => parseStopRule(r).kind === 'timeouts') && !hasEffectiveTimeout(c.timeouts))
    bad(
      'a timeouts stop rule needs an effective timeout: --omni-request-timeout-s ≤ 0 restores the legacy 6 h cap; ' +
        'give a positive timeout or --first-byte-timeout-s/--idle-timeout-s',
      'stopOn',
    );
}

function validateTimeouts(c: BenchConfig): void {
  const { totalS, firstByteS, idleS } = c.timeouts;
  for (const [v, field] of [
    [totalS, 'timeouts.totalS'],
    [firstByteS, 'timeouts.firstByteS'],
    [idleS, 'timeouts.idleS'],
  ] as const) {
    if (v !== undefined && v !== null && !Number.isFinite(v)) bad(`${v} is not a finite number of seconds`, field);
  }
  if (firstByteS !== undefined && firstByteS !== null && firstByteS <= 0)
    bad('first-byte timeout must be > 0', 'timeouts.firstByteS');
  if (idleS !== undefined && idleS !== null && idleS <= 0) bad('idle timeout must be > 0', 'timeouts.idleS');
  if (c.failFast && !hasEffectiveTimeout(c.timeouts)) {
    throw new StallscopeError(
      'CONFIG_FAIL_FAST_NO_TIMEOUT',
      '--omni-request-timeout-s ≤ 0 restores the legacy 6 h cap; give a positive timeout or --first-byte-timeout-s/--idle-timeout-s',
      'failFast',
    );
  }
}

function validateDataset(c: BenchConfig): void {
  const d = c.dataset;
  const unreadable = (detail: string): never => {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', detail, 'dataset.path');
  };
  switch (d.name) {
    case 'random':
      if (!Number.isInteger(d.inputLen) || d.inputLen < 1)
        bad('random input length must be an integer ≥ 1', 'dataset.inputLen');
      if (!Number.isInteger(d.outputLen) || d.outputLen < 1)
        bad('random output length must be an integer ≥ 1', 'dataset.outputLen');
      if (d.rangeRatio !== undefined && !(d.rangeRatio >= 0 && d.rangeRatio < 1))
        bad('random range ratio must be in [0, 1)', 'dataset.rangeRatio');
      return;
    case 'seed-tts': {
      if (!d.path)
        unreadable('seed-tts needs --dataset-path (a folder with {locale}/meta.lst, or a Hub dataset id ORG/NAME)');
      // As vLLM-Omni: a folder if there is one, else a Hub dataset id, found or fetched when the run starts.
      if (isFolder(d.path)) {
        const meta = join(d.path, d.locale, 'meta.lst');
        try {
          accessSync(meta, constants.R_OK);
        } catch {
          unreadable(`${meta} is missing or unreadable`);
        }
      } else if (!isHubDatasetId(d.path)) {
        unreadable(`${d.path} is not a folder, nor a Hub dataset id (ORG/NAME)`);
      }
      if (d.outputLen !== undefined && (!Number.isInteger(d.outputLen) || d.outputLen < 1))
        bad('output length must be an integer ≥ 1', 'dataset.outputLen');
      return;
    }
    case 'trace':
      if (!d.path) unreadable('trace needs --dataset-path (a JSONL file)');
      try {
        if (!statSync(d.path).isFile()) unreadable(`${d.path} is not a file`);
        accessSync(d.path, constants.R_OK);
      } catch (e) {
        if (e instanceof StallscopeError) throw e;
        unreadable(`${d.path} is missing or unreadable`);
      }
      return;
    default:
      bad(`unknown dataset '${(d as { name: string }).name}'`, 'dataset.name');
  }
}

/**
 * The Seed-TTS gate: only for seed-tts runs, with a usable recogniser — a
 * transcription server's URL, or the Python that runs stallscope's own
 * (docs/design.md#accuracy-gate, docs/design.md#local-asr).
 */
function validateSeedTtsEval(c: BenchConfig): void {
  const e = c.seedTtsEval!;
  if (c.dataset.name !== 'seed-tts')
    bad(`the Seed-TTS WER gate needs --dataset-name seed-tts (got '${c.dataset.name}')`, 'seedTtsEval');
  if ((e.asrUrl === undefined) === (e.localAsr === undefined))
    bad('give either a transcription server URL or the local transcription server, not both', 'seedTtsEval.asrUrl');
  if (e.asrUrl !== undefined) {
    let url: URL | null = null;
    try {
      url = new URL(e.asrUrl);
    } catch {
      /* reported below */
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      bad(`'${e.asrUrl}' is not an http(s) URL`, 'seedTtsEval.asrUrl');
  }
  if (e.localAsr) {
    if (!e.localAsr.python)
      bad('the Python that runs the transcription server is empty', 'seedTtsEval.localAsr.python');
    const t = e.localAsr.startTimeoutS;
    if (t !== undefined && !(t > 0))
      bad(`the transcription server's start timeout must be > 0 s (got ${t})`, 'seedTtsEval.localAsr.startTimeoutS');
  }
  if (!e.asrModel) bad('a recognition model name is required', 'seedTtsEval.asrModel');
  if (!(Number.isInteger(e.asrConcurrency) && e.asrConcurrency >= 1 && e.asrConcurrency <= 256))
    bad(`asr-concurrency must be an integer in 1..256 (got ${e.asrConcurrency})`, 'seedTtsEval.asrConcurrency');
  if (e.asrTimeoutS !== undefined && !(e.asrTimeoutS > 0))
    bad(`the transcription timeout must be > 0 s (got ${e.asrTimeoutS})`, 'seedTtsEval.asrTimeoutS');
}
