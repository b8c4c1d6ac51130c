/**
 * What a run is made of before anything is sent: the dataset, the event
 * stream (with the run probes told of every event), the per-request limits,
 * the Seed-TTS gate's audio spool, the run's own connections and the
 * request target, the request builder and the arrival schedule's kind. The
 * config has been validated (validate.ts).
 */
import type { BenchEvent } from '../../../shared/protocol/protocol.ts';
import type { ConnectionMode } from '../../../shared/types.ts';
import { effectiveTimeouts, LEGACY_TOTAL_TIMEOUT_S } from '../../../shared/config/timeouts.ts';
import type { ArrivalSpec } from '../schedule/arrivals.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import { loadDataset, type LoadedDataset } from '../datasets/index.ts';
import type { DownloadProgress } from '../datasets/hub/hubDownload.ts';
import { RunEvents } from '../records/events.ts';
import {
  RunConnections,
  bothSweepers,
  tlsOptions,
  ChunkShapes,
  type AttemptTarget,
  type Sweeper,
} from '../transport/index.ts';
import type { RunProbe } from './probe.ts';
import { buildHeaders, requestIdPrefix } from '../backends/requestBody.ts';
import { backendOf, runRequestBudget, type Backend } from '../backends/index.ts';
import type { RequestJob } from '../dispatch/requestRunner.ts';
import { RpsChangeLog } from '../schedule/traffic.ts';
import { validateStopRules } from './validate.ts';
import { SeedTtsGate } from '../accuracy/gate.ts';

export interface RunSetup {
  config: RunConfig;
  /** The run's backend module (docs/design.md#backends): its body builder, its reading, its result keys. */
  backend: Backend;
  data: LoadedDataset;
  /** Requests in the run. */
  n: number;
  log: (line: string) => void;
  events: RunEvents;
  /** A line in the log and a `run.warning` event. */
  warn: (message: string) => void;
  probes: readonly RunProbe[];
  /** Seed-TTS gate (`--seed-tts-wer-eval`): the answers' audio is spooled to disk during the run. */
  gate: SeedTtsGate | null;
  connectionMode: ConnectionMode;
  connections: RunConnections;
  /** Every socket the run owns: its HTTP connections and its backend's own (WebSockets), swept together. */
  sweeper: Sweeper;
  target: AttemptTarget;
  /** Aborted → the run is interrupted. */
  interrupt: AbortSignal;
  /** Request `index`'s headers and body, sent as `requestId` (a body `prebuild` made is taken, once). */
  job: (index: number, requestId: string) => Promise<RequestJob>;
  /** Builds the bodies of requests [0, count) now, before the clock, for `job` to take (docs/design.md#first-wave). */
  prebuild: (count: number) => Promise<void>;
  /** Request i's id in the run. */
  id: (index: number) => string;
  promptLen: (index: number) => number;
  /** Ramp-up runs: the whole-RPS steps (`rps_change_events`). */
  rps: RpsChangeLog | null;
  arrivals: ArrivalSpec;
}

/** The first wave's prebuilt bodies stop at this many bytes (docs/design.md#memory): long prompts build the rest when sent. */
const PREBUILT_BYTES = 8 * 1024 * 1024;

/** The engine options a run's set-up reads (EngineOptions in engine.ts). */
interface SetupOptions {
  onEvent?: (e: BenchEvent) => void;
  signal?: AbortSignal;
  log?: (line: string) => void;
  now?: () => number;
  probes?: readonly RunProbe[];
  onDownloadProgress?: (p: DownloadProgress) => void;
}

export async function setUpRun(config: RunConfig, opts: SetupOptions): Promise<RunSetup> {
  const log = opts.log ?? (() => undefined);
  // The gate first: its recogniser's Python is checked before a long download, and before anything is sent.
  const locale = config.workload.dataset.name === 'seed-tts' ? config.workload.dataset.locale : 'en';
  const gate = config.accuracy.seedTtsEval ? await SeedTtsGate.open(config.accuracy.seedTtsEval, locale) : null;
  let data: LoadedDataset;
  try {
    // A Seed-TTS dataset named by its Hub id comes from the Hugging Face cache, or is downloaded into it, now.
    data = await loadDataset(config, {
      env: process.env,
      log,
      onProgress: opts.onDownloadProgress,
      signal: opts.signal,
    });
  } catch (e) {
    await gate?.dispose();
    throw e;
  }
  // Probes watch the run from beside it (docs/design.md#server-stacks).
  const probes = opts.probes ?? [];
  const onEvent = probes.length
    ? (e: BenchEvent) => {
        opts.onEvent?.(e);
        for (const p of probes) p.onEvent(e);
      }
    : opts.onEvent;
  const events = new RunEvents(onEvent, log);
  const warn = (message: string): void => {
    log(message);
    events.emit({ type: 'run.warning', message });
  };
  // Printed now; as events only after run.started, which subscribers expect first.
  data.warnings.forEach((w) => log(w));

  const n = data.samples.length;
  // A trace or a short Seed-TTS set may hold fewer requests than asked for: the stop rules must still be reachable.
  if (n < config.workload.numPrompts) validateStopRules(config, n);
  const prefix = requestIdPrefix(config);
  const limits = effectiveTimeouts(config.limits.timeouts);
  const backend = backendOf(config.target.backend);
  const budgetBytes = runRequestBudget(config, data.samples, backend);
  // The budget is printed with the timeout: both end a request the server will not end (docs/design.md#peer-bounds).
  log(
    `Per-request timeout: ${limits.totalS}s${limits.totalS === LEGACY_TOTAL_TIMEOUT_S ? ' (legacy)' : ''}` +
      `${limits.firstByteS ? `, first byte ${limits.firstByteS}s` : ''}${limits.idleS ? `, idle ${limits.idleS}s` : ''}` +
      `; fail-fast on timeout: ${config.limits.failFast ? 'on' : 'off'}` +
      (config.limits.stopOn?.length ? `; stop on: ${config.limits.stopOn.join(', ')}` : '') +
      `; request budget: ${mib(budgetBytes)} MiB`,
  );
  const url = new URL(`${config.target.baseUrl}${config.target.endpoint}`);
  const connectionMode = config.dispatch.connectionMode ?? 'per_request';
  // One clock for the records' times and the reads' stamps (http/h1/readTurn.ts).
  const now = opts.now ?? (() => performance.now() / 1000);
  const connections = new RunConnections(url.origin, {
    maxConcurrency: config.dispatch.maxConcurrency,
    mode: connectionMode,
    connect: tlsOptions(config.target),
    now,
  });
  const target: AttemptTarget = {
    audioSpool: gate?.spool,
    dispatcher: connections,
    perRequest: connections.perRequest,
    origin: url.origin,
    path: url.pathname + url.search,
    limits,
    now,
    maxEventBytes: config.limits.maxEventBytes,
    budgetBytes,
    // Its warnings (a bad PCM format variable) join the dataset's: printed now, emitted after run.started.
    reading: backend.reading?.(process.env, (w) => {
      log(w);
      data.warnings.push(w);
    }),
    attempt: backend.attempt,
    maxAttempts: backend.maxAttempts,
    chunkShapes: new ChunkShapes(),
  };
  const own = backend.sockets?.(target);
  const { job, prebuild } = requestBuilder(config, data, n, backend);
  return {
    config,
    backend,
    data,
    n,
    log,
    events,
    warn,
    probes,
    gate,
    connectionMode,
    connections,
    sweeper: own ? bothSweepers(connections, own) : connections,
    target,
    interrupt: opts.signal ?? new AbortController().signal,
    job,
    prebuild,
    id: (i) => `${prefix}${i}`,
    promptLen: (i) => data.samples[i].promptLen,
    rps: config.dispatch.rampUp ? new RpsChangeLog(config.dispatch.rampUp, n) : null,
    arrivals: arrivalSpec(
      config,
      data.samples.map((s) => s.timestamp ?? 0),
    ),
  };
}

function arrivalSpec(config: RunConfig, timestamps: number[]): ArrivalSpec {
  if (config.workload.dataset.name === 'trace' && config.dispatch.selfTimed !== false)
    return { mode: 'self-timed', timestamps };
  if (config.dispatch.rampUp)
    return {
      mode: 'ramp-up',
      ...config.dispatch.rampUp,
      burstiness: config.dispatch.burstiness,
      seed: config.workload.seed,
    };
  if (config.dispatch.requestRate === 'inf') return { mode: 'immediate' };
  return {
    mode: 'rate',
    rate: config.dispatch.requestRate,
    burstiness: config.dispatch.burstiness,
    seed: config.workload.seed,
  };
}

/** `job` and `prebuild` of a run (RunSetup): request bodies built when sent, or the first wave's before the clock. */
function requestBuilder(
  config: RunConfig,
  data: LoadedDataset,
  n: number,
  backend: Backend,
): Pick<RunSetup, 'job' | 'prebuild'> {
  const prebuilt = new Map<number, string | Uint8Array>();
  const job = async (index: number, requestId: string): Promise<RequestJob> => {
    const early = prebuilt.get(index);
    if (early !== undefined) prebuilt.delete(index);
    return {
      index,
      requestId,
      headers: buildHeaders(config, requestId),
      body: early ?? (await backend.buildBody(config, data.samples[index])),
      promptLen: data.samples[index].promptLen,
    };
  };
  const prebuild = async (count: number): Promise<void> => {
    let bytes = 0;
    for (let i = 0; i < Math.min(count, n) && bytes < PREBUILT_BYTES; i++) {
      // A row whose body is loaded at send time (a Seed-TTS reference audio) is too big to hold: none of those.
      if (data.samples[i].loadRowBody) return;
      const body = await backend.buildBody(config, data.samples[i]);
      prebuilt.set(i, body);
      bytes += body.length;
    }
  };
  return { job, prebuild };
}

/** Bytes as MiB for the console: whole when whole, else one decimal. */
function mib(bytes: number): string {
  const m = bytes / (1 << 20);
  return Number.isInteger(m) ? String(m) : m.toFixed(1);
}
