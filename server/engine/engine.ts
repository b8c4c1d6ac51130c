/**
 * The benchmark engine: validate, load the dataset, ready check, warmups,
 * the timed dispatch (with the fail-fast breaker), then metrics, verdict and
 * the result file. Throws only for configuration errors (StallscopeError,
 * before anything is sent); whatever the target does ends in a verdict.
 */
import type { BenchEvent } from '../../shared/protocol/protocol.ts';
import type { RunConfig } from '../../shared/config/runConfig.ts';
import { arrivalOffsets } from './schedule/arrivals.ts';
import { runDispatch, skippedDispatch, type DispatchResult } from './dispatch/dispatch.ts';
import { finishBenchmark, type BenchOutcome } from './run/finalize.ts';
import { validateBenchConfig } from './run/validate.ts';
import { finishProbes, type RunProbe } from './run/probe.ts';
import { setUpRun, type RunSetup } from './run/runSetup.ts';
import { beforeClock } from './run/beforeClock.ts';
import { readServerIdentity } from './run/serverIdentity.ts';
import type { ServerIdentity } from '../../shared/runInfo/serverIdentity.ts';
import type { DownloadProgress } from './datasets/hub/hubDownload.ts';
import { effectiveStopRules } from '../../shared/config/stopRules.ts';
import { isRealtimeBackend } from '../../shared/config/backends.ts';
import { redactSecrets } from '../../shared/redact.ts';

export interface EngineOptions {
  onEvent?: (e: BenchEvent) => void;
  /**
   * Abort → in-flight requests are aborted, verdict `interrupted`, the partial
   * result is kept. The abort reason `'signal'` or `'dashboard'` becomes the
   * result's `interrupt_cause` (anything else reads as `'signal'`).
   */
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Last server phase known for a request (from telemetry), recorded in the breaker's cause. */
  lastPhaseOf?: (requestId: string) => string | null | undefined;
  /** Monotonic seconds for the per-request timings (default performance.now); a test injects a CPU clock. */
  now?: () => number;
  /** Warm the client's hot paths in-process before the clock starts (default true; see warmClient.ts). */
  warmClient?: boolean;
  /**
   * Run probes watching beside the run (probe.ts), built and checked by the
   * caller before it calls the engine (the server-stacks probe:
   * probes/serverStacks/). The engine imports none.
   */
  probes?: readonly RunProbe[];
  /** A Seed-TTS dataset being downloaded from the Hub before the run (docs/design.md#hub-datasets). */
  onDownloadProgress?: (p: DownloadProgress) => void;
}

export type { BenchOutcome };

export async function runBenchmark(config: RunConfig, opts: EngineOptions = {}): Promise<BenchOutcome> {
  validateBenchConfig(config);
  const r = await setUpRun(config, opts);
  const { events, log, gate, interrupt } = r;
  let errored: string | null;
  let extraResult: Record<string, unknown> | undefined;
  let run: DispatchResult;
  // The target's identity, read beside the ready check (bounded: serverIdentity.ts); run.started carries it.
  const identity = config.evidence.serverIdentity === false ? null : readServerIdentity(config);
  let serverIdentity: ServerIdentity | undefined;
  try {
    const ready = await beforeClock(r, opts.warmClient !== false);
    errored = ready.errored;
    serverIdentity = (await identity) ?? undefined;
    startClock(r, ready.starts, serverIdentity);
    run = await dispatch(r, errored, opts);
  } catch (e) {
    await gate?.dispose();
    throw e;
  } finally {
    // Every socket closed (aborted ones included) before anything is written; bounded like a trip's sweep.
    const { forcedSockets } = await r.sweeper.sweep(null);
    if (forcedSockets > 0)
      r.warn(`cleanup: ${forcedSockets} socket(s) had to be destroyed one by one at the end of the run`);
    // Then the probes' captures in progress (each bounded by its own limit), so their keys are in the result.
    extraResult = {
      ...(serverIdentity ? { server_identity: serverIdentity } : {}),
      ...(await finishProbes(r.probes, log)),
    };
  }
  // Seed-TTS gate, after the benchmark as vLLM-Omni (an interrupt stops it too).
  const seedTts = gate
    ? await gate.evaluate({
        samples: r.data.samples,
        records: run.records,
        events,
        log,
        signal: interrupt,
        thresholds: config.output.thresholds,
      })
    : null;
  const reason: unknown = interrupt.reason;
  // Interrupted before any trip, or during the Seed-TTS evaluation after the requests.
  const interrupted = run.interrupted || Boolean(seedTts?.interrupted);
  const interruptCause = interrupted ? (reason === 'dashboard' ? 'dashboard' : 'signal') : null;
  return finishBenchmark({
    config,
    run,
    events,
    errored,
    log,
    rpsChangeEvents: r.rps?.events,
    backendKeys: r.backend.resultKeys,
    seedTts,
    extraResult,
    connectionMode: r.connectionMode,
    interruptCause,
  });
}

/** The benchmark clock starts: `run.started`, the dataset's warnings, then the probes start watching. */
function startClock(r: RunSetup, starts: boolean, serverIdentity: ServerIdentity | undefined): void {
  const { config, events } = r;
  events.startClock();
  if (starts) r.rps?.start();
  events.emit({
    type: 'run.started',
    runId: config.runId,
    startedAtMs: Date.now(),
    numRequests: r.n,
    maxConcurrency: config.dispatch.maxConcurrency,
    requestRate: config.dispatch.requestRate,
    failFast: config.limits.failFast,
    ...(config.limits.stopOn?.length ? { stopOn: [...config.limits.stopOn] } : {}),
    model: config.target.model,
    // Events are shown and sent on (the dashboard, --report-to): the target's credentials stay in this process.
    baseUrl: redactSecrets(config.target.baseUrl),
    ...(serverIdentity ? { serverIdentity } : {}),
    ...(isRealtimeBackend(config.target.backend) ? { turnsPerSession: config.workload.turnsPerSession ?? 1 } : {}),
  });
  for (const message of r.data.warnings) events.emit({ type: 'run.warning', message });
  for (const p of r.probes) p.start({ emit: (e) => events.emit(e), log: r.log });
}

/** The timed dispatch, or, when the run could not start, every request reported unsent. */
function dispatch(r: RunSetup, errored: string | null, opts: EngineOptions): Promise<DispatchResult> {
  const { config, probes, rps } = r;
  if (errored) {
    r.warn(errored);
    return Promise.resolve(skippedDispatch(r.n, r.events, r.promptLen, errored));
  }
  return runDispatch({
    target: r.target,
    connections: r.sweeper,
    events: r.events,
    log: r.log,
    offsets: arrivalOffsets(r.n, r.arrivals),
    maxConcurrency: config.dispatch.maxConcurrency,
    turnsPerSession: isRealtimeBackend(config.target.backend) ? (config.workload.turnsPerSession ?? 1) : 1,
    failFast: config.limits.failFast,
    stopRules: effectiveStopRules(config.limits.stopOn, false),
    metrics: {
      percentileMetrics: config.output.percentileMetrics,
      metricPercentiles: config.output.metricPercentiles,
      goodput: config.output.goodput,
    },
    prepare: (i) => r.job(i, r.id(i)),
    requestId: r.id,
    promptLen: r.promptLen,
    interrupt: r.interrupt,
    lastPhaseOf: opts.lastPhaseOf,
    onArrival: rps ? (i) => rps.onArrival(i) : undefined,
    onTimeout: probes.length ? (t) => probes.forEach((p) => p.onTimeout(t)) : undefined,
  });
}
