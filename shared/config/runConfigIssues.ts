/**
 * The one validator of a run configuration (runConfig.ts): every rule the
 * form, `POST /api/runs`, `stallscope bench` and the engine refuse a run by,
 * written once, pure (docs/design.md#refusals). Each issue names its field by
 * config path; its words name the fields it mentions through the caller's
 * `NameOf` (runConfigNames.ts: the RunSpec's dotted fields or the CLI's
 * flags), so one mistake reads the same through either interface. What needs
 * the machine (a dataset's folder, a result file's name on disk, the headers
 * the run's client can send, the recogniser's Python) is the engine's own
 * step after this one (server/engine/run/validate.ts).
 */
import type { ErrorCode } from '../errors.ts';
import { GOODPUT_METRICS, PERCENTILE_METRICS } from '../metrics/index.ts';
import { redactUrl } from '../redact.ts';
import { isLoopbackUrl } from '../stalls/stallReport.ts';
import { BACKENDS, endpointIssue, isBackendName, isRealtimeBackend } from './backends.ts';
import { hasEffectiveTimeout } from './timeouts.ts';
import { timerIssue } from './durations.ts';
import { liveMetricKeys, parseStopRule, stopRuleIssues } from './stopRules.ts';
import { flagName, type NameOf } from './runConfigNames.ts';
import type { RunConfig } from './runConfig.ts';

/** One refusal: the field by config path, its code (shared/errors.ts) and its words (without the code's headline). */
export interface ConfigIssue {
  path: string;
  code: ErrorCode;
  message: string;
}

export interface ConfigIssueOptions {
  /** Skip a rule reading any of these config paths (the form: fields already in error). */
  skip?: (paths: readonly string[]) => boolean;
  /** The run's size for the stop rules (default the configured prompts; the dataset's real size once loaded). */
  numRequests?: number;
}

/**
 * The WHATWG URL parser, a global in Node and in browsers alike (shared/ is
 * compiled with neither's types): the URLs are checked as the engine opens them.
 */
interface ParsedUrl {
  protocol: string;
  pathname: string;
}
declare const URL: new (input: string) => ParsedUrl;

/** The largest seed numpy's global RNG takes (np.random.seed raises otherwise); vLLM seeds it with --seed. */
const NUMPY_MAX_SEED = 2 ** 32 - 1;

/** Every issue with `c`, in a fixed order (the engine and the CLI refuse on the first); `name` words the fields. */
export function runConfigIssues(c: RunConfig, name: NameOf = flagName, opts: ConfigIssueOptions = {}): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const ok = (...paths: string[]) => !opts.skip?.(paths);
  const add = (path: string, message: string, code: ErrorCode = 'CONFIG_INVALID') => {
    if (ok(path)) out.push({ path, code, message });
  };
  targetIssues(c, name, add, ok);
  workloadIssues(c, add);
  limitsIssues(c, name, add, ok, opts.numRequests ?? c.workload.numPrompts);
  rampUpIssues(c, name, add, ok);
  accuracyIssues(c, name, add, ok);
  outputIssues(c, add);
  datasetIssues(c, add);
  realtimeIssues(c, name, add, ok);
  evidenceIssues(c, name, add, ok);
  timerIssues(c, add);
  return out;
}

type Add = (path: string, message: string, code?: ErrorCode) => void;
type Ok = (...paths: string[]) => boolean;

function targetIssues(c: RunConfig, name: NameOf, add: Add, ok: Ok): void {
  const t = c.target;
  if (!isBackendName(t.backend)) {
    add('target.backend', `'${t.backend}' (supported: ${BACKENDS.join(', ')})`, 'CONFIG_BACKEND_UNSUPPORTED');
    return;
  }
  let url: ParsedUrl | null = null;
  try {
    url = new URL(`${t.baseUrl}${t.endpoint}`);
  } catch {
    add('target.baseUrl', `'${redactUrl(t.baseUrl)}${t.endpoint}' is not a URL`);
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
    add('target.baseUrl', `'${redactUrl(t.baseUrl)}' must be http(s)`);
  // Each backend has its endpoint (the engine refuses another, as vLLM-Omni's client does).
  if (ok('target.backend')) {
    const wrong = endpointIssue(t.backend, t.endpoint, url ? url.pathname : t.endpoint.split('?')[0]);
    if (wrong) add('target.endpoint', `${wrong} for ${t.backend}`);
  }
  if (!t.model) add('target.model', 'a model name is required');
  if (!c.runId) add('runId', 'a run id is required');
  void name;
}

function workloadIssues(c: RunConfig, add: Add): void {
  const { workload: w, dispatch: d, limits: l } = c;
  if (!Number.isInteger(w.numPrompts) || w.numPrompts < 1)
    add('workload.numPrompts', `num-prompts must be an integer ≥ 1 (got ${w.numPrompts})`);
  if (d.maxConcurrency !== null && (!Number.isInteger(d.maxConcurrency) || d.maxConcurrency < 1))
    add('dispatch.maxConcurrency', `max-concurrency must be an integer ≥ 1 (got ${d.maxConcurrency})`);
  if (
    d.requestRate !== 'inf' &&
    !(typeof d.requestRate === 'number' && d.requestRate > 0 && !Number.isNaN(d.requestRate))
  )
    add('dispatch.requestRate', `request-rate must be > 0 or inf (got ${d.requestRate})`);
  if (!(d.burstiness > 0)) add('dispatch.burstiness', `burstiness must be > 0 (got ${d.burstiness})`);
  if (!Number.isInteger(d.numWarmups) || d.numWarmups < 0)
    add('dispatch.numWarmups', `num-warmups must be an integer ≥ 0 (got ${d.numWarmups})`);
  if (!(Number.isInteger(w.seed) && w.seed >= 0 && w.seed <= NUMPY_MAX_SEED))
    add('workload.seed', `seed must be an integer between 0 and 2**32 - 1, as numpy requires (got ${w.seed})`);
  if (d.readyCheckTimeoutS !== undefined && !(d.readyCheckTimeoutS >= 0))
    add('dispatch.readyCheckTimeoutS', 'ready-check-timeout-sec must be ≥ 0');
  if (l.maxEventBytes !== undefined && !(Number.isInteger(l.maxEventBytes) && l.maxEventBytes > 0))
    add('limits.maxEventBytes', 'maxEventBytes must be an integer > 0');
}

/** Timeouts, fail-fast and the stop rules (docs/design.md#stop-rules). */
function limitsIssues(c: RunConfig, name: NameOf, add: Add, ok: Ok, numRequests: number): void {
  const { timeouts, failFast } = c.limits;
  const { totalS, firstByteS, idleS } = timeouts;
  for (const [v, path] of [
    [totalS, 'limits.timeouts.totalS'],
    [firstByteS, 'limits.timeouts.firstByteS'],
    [idleS, 'limits.timeouts.idleS'],
  ] as const) {
    if (v !== undefined && v !== null && !Number.isFinite(v)) add(path, `${v} is not a finite number of seconds`);
  }
  if (firstByteS !== undefined && firstByteS !== null && firstByteS <= 0)
    add('limits.timeouts.firstByteS', 'first-byte timeout must be > 0');
  if (idleS !== undefined && idleS !== null && idleS <= 0) add('limits.timeouts.idleS', 'idle timeout must be > 0');
  const timeoutsOk = ok('limits.timeouts.totalS', 'limits.timeouts.firstByteS', 'limits.timeouts.idleS');
  const noTimeout = () =>
    `${name('limits.timeouts.totalS')} ≤ 0 restores the legacy 6 h cap; give a positive timeout or ` +
    `${name('limits.timeouts.firstByteS')}/${name('limits.timeouts.idleS')}`;
  if (failFast && timeoutsOk && ok('limits.failFast') && !hasEffectiveTimeout(timeouts))
    add('limits.timeouts.totalS', noTimeout(), 'CONFIG_FAIL_FAST_NO_TIMEOUT');
  if (c.dispatch.selfTimed && c.workload.dataset.name !== 'trace' && ok('workload.dataset.name'))
    add(
      'dispatch.selfTimed',
      `${name('workload.dataset.name')} is '${c.workload.dataset.name}': self-timed dispatch sends each trace row at its own timestamp`,
      'CONFIG_SELF_TIMED_NEEDS_TRACE',
    );
  const stop = stopOnIssue(c, numRequests, timeoutsOk ? noTimeout : null);
  if (stop && ok('workload.numPrompts', 'output.percentileMetrics', 'output.metricPercentiles', 'output.goodput'))
    add('limits.stopOn', stop);
}

/**
 * Every duration armed as one timer (durations.ts): longer than a timer can
 * wait, it would fire at once. A total ≤ 0 is the legacy cap, not a timer.
 */
function timerIssues(c: RunConfig, add: Add): void {
  const e = c.accuracy.seedTtsEval;
  for (const [path, v] of [
    ['limits.timeouts.totalS', c.limits.timeouts.totalS],
    ['limits.timeouts.firstByteS', c.limits.timeouts.firstByteS],
    ['limits.timeouts.idleS', c.limits.timeouts.idleS],
    ['dispatch.readyCheckTimeoutS', c.dispatch.readyCheckTimeoutS],
    ['accuracy.seedTtsEval.asrTimeoutS', e?.asrTimeoutS],
    ['accuracy.seedTtsEval.localAsr.startTimeoutS', e?.localAsr?.startTimeoutS],
    ['evidence.serverStacks.stallAfterS', c.evidence.serverStacks?.stallAfterS],
  ] as const) {
    const issue = typeof v === 'number' && Number.isFinite(v) ? timerIssue(v) : null;
    if (issue) add(path, issue);
  }
}

/**
 * The stop rules against a run of `numRequests`: syntax, metric names, counts
 * and windows it could reach; a timeouts rule needs an effective timeout, as
 * fail-fast does. The first issue, or null.
 */
function stopOnIssue(c: RunConfig, numRequests: number, noTimeout: (() => string) | null): string | null {
  const rules = c.limits.stopOn ?? [];
  if (!Array.isArray(rules)) return 'stop rules must be a list of rules';
  const metricKeys = liveMetricKeys({
    percentileMetrics: c.output.percentileMetrics,
    metricPercentiles: c.output.metricPercentiles,
    goodput: c.output.goodput,
  });
  const issues = stopRuleIssues(rules, { numRequests, metricKeys });
  if (issues.length) return issues[0];
  if (noTimeout && rules.some((r) => parseStopRule(r).kind === 'timeouts') && !hasEffectiveTimeout(c.limits.timeouts))
    return `a timeouts stop rule needs an effective timeout: ${noTimeout()}`;
  return null;
}

/** The stop rules alone, against the dataset's real size once it is loaded (server/engine/runSetup.ts). */
export function stopRulesIssue(c: RunConfig, numRequests: number, name: NameOf = flagName): ConfigIssue | null {
  const message = stopOnIssue(
    c,
    numRequests,
    () =>
      `${name('limits.timeouts.totalS')} ≤ 0 restores the legacy 6 h cap; give a positive timeout or ` +
      `${name('limits.timeouts.firstByteS')}/${name('limits.timeouts.idleS')}`,
  );
  return message ? { path: 'limits.stopOn', code: 'CONFIG_INVALID', message } : null;
}

/** vLLM's ramp-up checks, plus a start of 0 (its first request would be sent at rate 0, which vLLM asserts against mid-run). */
function rampUpIssues(c: RunConfig, name: NameOf, add: Add, ok: Ok): void {
  const r = c.dispatch.rampUp;
  if (!r) return;
  if (r.strategy !== 'linear' && r.strategy !== 'exponential')
    add('dispatch.rampUp.strategy', `ramp-up strategy '${String(r.strategy)}' is not linear or exponential`);
  if (c.dispatch.requestRate !== 'inf')
    add(
      'dispatch.requestRate',
      `with ramp-up the rate comes from the ramp-up start and end; remove ${name('dispatch.requestRate')}`,
    );
  // A trace is self-timed unless self-timed is explicitly off (see engine.ts arrivalSpec).
  if (c.dispatch.selfTimed || (c.workload.dataset.name === 'trace' && c.dispatch.selfTimed !== false))
    add('dispatch.rampUp', 'a self-timed trace sets its own arrival times; ramp-up cannot apply');
  for (const [k, v] of [
    ['startRps', r.startRps],
    ['endRps', r.endRps],
  ] as const) {
    if (!(Number.isInteger(v) && v > 0))
      add(
        `dispatch.rampUp.${k}`,
        `ramp-up ${k === 'startRps' ? 'start' : 'end'} RPS must be an integer > 0 (got ${v})`,
      );
  }
  if (r.startRps > r.endRps && ok('dispatch.rampUp.endRps'))
    add('dispatch.rampUp.startRps', `ramp-up start RPS (${r.startRps}) must not exceed the end RPS (${r.endRps})`);
}

/**
 * The Seed-TTS gate: only for seed-tts runs, with a usable recogniser — a
 * transcription server's URL, or the Python that runs stallscope's own
 * (docs/design.md#accuracy-gate, docs/design.md#local-asr).
 */
function accuracyIssues(c: RunConfig, name: NameOf, add: Add, ok: Ok): void {
  const e = c.accuracy.seedTtsEval;
  if (!e) return;
  const dataset = c.workload.dataset.name;
  if (dataset !== 'seed-tts' && ok('workload.dataset.name'))
    add(
      'accuracy.seedTtsEval',
      `the Seed-TTS WER gate needs ${name('workload.dataset.name')} seed-tts (got '${dataset}')`,
    );
  if ((e.asrUrl === undefined) === (e.localAsr === undefined))
    add(
      'accuracy.seedTtsEval.asrUrl',
      'give either a transcription server URL or the local transcription server, not both',
    );
  if (e.asrUrl !== undefined) {
    let url: ParsedUrl | null = null;
    try {
      url = new URL(e.asrUrl);
    } catch {
      /* reported below */
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      add(
        'accuracy.seedTtsEval.asrUrl',
        `'${redactUrl(e.asrUrl)}' is not an http(s) URL: the WER gate needs the base URL of a transcription server ` +
          '(e.g. vllm serve openai/whisper-large-v3)',
      );
  }
  if (e.localAsr) {
    if (!e.localAsr.python)
      add('accuracy.seedTtsEval.localAsr.python', 'the Python that runs the transcription server is empty');
    const t = e.localAsr.startTimeoutS;
    if (t !== undefined && !(t > 0))
      add(
        'accuracy.seedTtsEval.localAsr.startTimeoutS',
        `the transcription server's start timeout must be > 0 s (got ${t})`,
      );
  }
  if (!e.asrModel) add('accuracy.seedTtsEval.asrModel', 'a recognition model name is required');
  if (!(Number.isInteger(e.asrConcurrency) && e.asrConcurrency >= 1 && e.asrConcurrency <= 256))
    add(
      'accuracy.seedTtsEval.asrConcurrency',
      `asr-concurrency must be an integer in 1..256 (got ${e.asrConcurrency})`,
    );
  if (e.asrTimeoutS !== undefined && !(e.asrTimeoutS > 0))
    add('accuracy.seedTtsEval.asrTimeoutS', `the transcription timeout must be > 0 s (got ${e.asrTimeoutS})`);
}

function outputIssues(c: RunConfig, add: Add): void {
  const { workload: w, output: o } = c;
  if (
    w.extraBody !== undefined &&
    (w.extraBody === null || typeof w.extraBody !== 'object' || Array.isArray(w.extraBody))
  )
    add('workload.extraBody', 'must be a JSON object', 'CONFIG_EXTRA_BODY');
  for (const m of o.percentileMetrics) {
    if (!(PERCENTILE_METRICS as readonly string[]).includes(m)) {
      add('output.percentileMetrics', `unknown metric '${m}' (known: ${PERCENTILE_METRICS.join(', ')})`);
      break;
    }
  }
  for (const p of o.metricPercentiles)
    if (!(p > 0 && p <= 100)) {
      add('output.metricPercentiles', `percentile ${p} is not in (0, 100]`);
      break;
    }
  // The thresholds' syntax is the verdict's (shared/runInfo/verdict.ts), checked by the engine's step.
  for (const [k, v] of Object.entries(o.goodput ?? {})) {
    // vLLM's check_goodput_args, same rules.
    if (!(GOODPUT_METRICS as readonly string[]).includes(k))
      add('output.goodput', `unknown goodput metric '${k}' (one of ${GOODPUT_METRICS.join(', ')})`);
    else if (!(typeof v === 'number' && v >= 0))
      add('output.goodput', `goodput ${k}:${v}: the SLO must be a non-negative number of milliseconds`);
  }
}

/** A dataset's own numbers (its files are the engine's step). */
function datasetIssues(c: RunConfig, add: Add): void {
  const d = c.workload.dataset;
  switch (d.name) {
    case 'random':
      if (!Number.isInteger(d.inputLen) || d.inputLen < 1)
        add('workload.dataset.inputLen', 'random input length must be an integer ≥ 1');
      if (!Number.isInteger(d.outputLen) || d.outputLen < 1)
        add('workload.dataset.outputLen', 'random output length must be an integer ≥ 1');
      if (d.rangeRatio !== undefined && !(d.rangeRatio >= 0 && d.rangeRatio < 1))
        add('workload.dataset.rangeRatio', 'random range ratio must be in [0, 1)');
      return;
    case 'seed-tts':
      if (d.outputLen !== undefined && (!Number.isInteger(d.outputLen) || d.outputLen < 1))
        add('workload.dataset.outputLen', 'output length must be an integer ≥ 1');
      return;
    case 'trace':
      return;
    default:
      add('workload.dataset.name', `unknown dataset '${(d as { name: string }).name}'`);
  }
}

/**
 * The realtime backends' refusals (docs/design.md#realtime): what vLLM-Omni
 * refuses (more than one turn per session without a realtime backend; a
 * duplex run without Seed-TTS input audio; a trigger other than `explicit` or
 * `vad`) and what stallscope cannot do over a WebSocket session (the
 * Seed-TTS gate spools HTTP answers only).
 */
function realtimeIssues(c: RunConfig, name: NameOf, add: Add, ok: Ok): void {
  const { backend } = c.target;
  const k = c.workload.turnsPerSession;
  const turns = name('workload.turnsPerSession');
  if (k !== undefined && !(Number.isInteger(k) && k >= 1))
    add('workload.turnsPerSession', `${turns} must be an integer ≥ 1 (got ${k})`, 'CONFIG_REALTIME');
  if (!ok('target.backend')) return;
  if (!isRealtimeBackend(backend)) {
    if (k !== undefined && k > 1)
      add(
        'workload.turnsPerSession',
        `${turns} > 1 requires a realtime backend (got backend '${backend}')`,
        'CONFIG_REALTIME',
      );
    return;
  }
  if (c.accuracy.seedTtsEval)
    add(
      'accuracy.seedTtsEval',
      `${name('accuracy.seedTtsEval')} reads HTTP answers; a realtime session has none to spool`,
      'CONFIG_REALTIME',
    );
  const trigger = c.workload.extraBody?.realtime_trigger;
  if (trigger !== undefined && trigger !== 'explicit' && trigger !== 'vad')
    add(
      'workload.extraBody',
      `realtime_trigger must be "explicit" or "vad" (got ${JSON.stringify(trigger)})`,
      'CONFIG_REALTIME',
    );
  const flow = c.workload.extraBody?.realtime_tts_flow;
  if (flow !== undefined && (backend !== 'openai-realtime-tts' || (flow !== 'native' && flow !== 'turns')))
    add(
      'workload.extraBody',
      backend !== 'openai-realtime-tts'
        ? `realtime_tts_flow picks openai-realtime-tts's flow; backend '${backend}' has one flow`
        : `realtime_tts_flow must be "native" or "turns" (got ${JSON.stringify(flow)})`,
      'CONFIG_REALTIME',
    );
  if (backend === 'openai-realtime-duplex' && c.workload.dataset.name !== 'seed-tts')
    add(
      'workload.dataset.name',
      `openai-realtime-duplex speaks each prompt's Seed-TTS reference audio: use ${name('workload.dataset.name')} seed-tts (got '${c.workload.dataset.name}')`,
      'CONFIG_REALTIME',
    );
}

/** The probes' settings that need no machine: `auto` finds the server by its port, so only on loopback. */
function evidenceIssues(c: RunConfig, name: NameOf, add: Add, ok: Ok): void {
  const s = c.evidence.serverStacks;
  if (!s) return;
  if (s.pid !== 'auto' && !(Number.isInteger(s.pid) && s.pid > 0))
    add(
      'evidence.serverStacks.pid',
      `${name('evidence.serverStacks.pid')} must be a process id or auto (got ${s.pid})`,
      'CONFIG_SERVER_PID',
    );
  if (s.pid === 'auto' && ok('target.baseUrl') && !isLoopbackUrl(c.target.baseUrl))
    add(
      'evidence.serverStacks.pid',
      `${name('evidence.serverStacks.pid')} auto needs a loopback base URL (127.0.0.1, ::1, localhost), ` +
        `not '${redactUrl(c.target.baseUrl)}': the server's process can only be found on this machine; give its pid instead`,
      'CONFIG_SERVER_PID',
    );
  if (s.stallAfterS !== undefined && !(s.stallAfterS > 0))
    add(
      'evidence.serverStacks.stallAfterS',
      `${name('evidence.serverStacks.stallAfterS')} must be > 0 seconds (got ${s.stallAfterS})`,
    );
}
