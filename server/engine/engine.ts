/**
 * The benchmark engine: validate, load the dataset, ready check, warmups,
 * the timed dispatch (with the fail-fast breaker), then metrics, verdict and
 * the result file. Throws only for configuration errors (StallscopeError,
 * before anything is sent); whatever the target does ends in a verdict.
 */
import type { BenchEvent } from '../../shared/protocol.ts';
import type { BenchConfig } from './config.ts';
import { arrivalOffsets, type ArrivalSpec } from './arrivals.ts';
import { loadDataset } from './datasets/index.ts';
import { runDispatch, skippedDispatch, type DispatchResult } from './dispatch.ts';
import { RunEvents } from './events.ts';
import { finishBenchmark, type BenchOutcome } from './finalize.ts';
import { RunConnections } from './http/dispatcher.ts';
import { tlsOptions } from './http/tls.ts';
import { effectiveTimeouts, LEGACY_TOTAL_TIMEOUT_S } from './http/timeouts.ts';
import { buildHeaders, buildRequestBody, requestIdPrefix } from './requestBody.ts';
import type { RequestJob } from './requestRunner.ts';
import { validateBenchConfig } from './validate.ts';
import { readyCheck, runWarmups } from './warmup.ts';
import { warmClient } from './warm/warmClient.ts';
import { settleBackground } from './warm/settle.ts';
import { RpsChangeLog, trafficLines } from './traffic.ts';
import { SeedTtsGate } from './accuracy/gate.ts';
import { finishProbes } from './probe.ts';
import { probesFor } from './probes/serverStacks/index.ts';
import { readServerIdentity } from './serverIdentity.ts';
import type { ServerIdentity } from '../../shared/serverIdentity.ts';

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
}

export type { BenchOutcome };

export async function runBenchmark(config: BenchConfig, opts: EngineOptions = {}): Promise<BenchOutcome> {
  validateBenchConfig(config);
  const data = loadDataset(config);
  const log = opts.log ?? (() => undefined);
  // Probes watch the run from beside it (server stacks, docs/design.md#server-stacks); refusals throw here.
  const probes = probesFor(config);
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
  const prefix = requestIdPrefix(config);
  const limits = effectiveTimeouts(config.timeouts);
  log(
    `Per-request timeout: ${limits.totalS}s${limits.totalS === LEGACY_TOTAL_TIMEOUT_S ? ' (legacy)' : ''}` +
      `${limits.firstByteS ? `, first byte ${limits.firstByteS}s` : ''}${limits.idleS ? `, idle ${limits.idleS}s` : ''}` +
      `; fail-fast on timeout: ${config.failFast ? 'on' : 'off'}`,
  );
  const url = new URL(`${config.baseUrl}${config.endpoint}`);
  // Seed-TTS gate: the answers' audio is spooled to disk during the run (accuracy/gate.ts).
  const gate = config.seedTtsEval ? await SeedTtsGate.open(config.seedTtsEval) : null;
  const connectionMode = config.connectionMode ?? 'per_request';
  const connections = new RunConnections(url.origin, {
    maxConcurrency: config.maxConcurrency,
    mode: connectionMode,
    connect: tlsOptions(config),
  });
  const target = {
    audioSpool: gate?.spool,
    dispatcher: connections.pool,
    perRequest: connections.perRequest,
    origin: url.origin,
    path: url.pathname + url.search,
    limits,
    now: opts.now ?? (() => performance.now() / 1000),
    maxEventBytes: config.maxEventBytes,
  };
  const interrupt = opts.signal ?? new AbortController().signal;
  const job = async (index: number, requestId: string): Promise<RequestJob> => ({
    index,
    requestId,
    headers: buildHeaders(config, requestId),
    body: await buildRequestBody(config, data.samples[index]),
    promptLen: data.samples[index].promptLen,
  });

  // The target's identity, read beside the ready check (bounded: serverIdentity.ts); run.started carries it.
  const identity = config.serverIdentity === false ? null : readServerIdentity(config);
  let serverIdentity: ServerIdentity | undefined;
  let errored: string | null = null;
  let extraResult: Record<string, unknown> | undefined;
  let run: DispatchResult;
  const rps = config.rampUp ? new RpsChangeLog(config.rampUp, n) : null;
  const arrivals = arrivalSpec(
    config,
    data.samples.map((s) => s.timestamp ?? 0),
  );
  try {
    log('Starting initial single prompt test run...');
    if (config.readyCheckTimeoutS && config.readyCheckTimeoutS > 0) {
      errored = await readyCheck(
        target,
        config.readyCheckTimeoutS,
        (k) => job(0, `${config.runId}-ready-${k}`),
        interrupt,
        log,
      );
      // Stopped by a signal while checking: that is an interruption, not an unreachable target.
      if (interrupt.aborted) errored = null;
      if (!errored) log(interrupt.aborted ? 'Interrupted during the ready check.' : 'Initial test run completed.');
    } else log('Skipping endpoint ready check.');
    if (!errored && config.numWarmups > 0 && !interrupt.aborted) {
      log(`Warming up with ${config.numWarmups} requests...`);
      const ok = await runWarmups(
        target,
        config.numWarmups,
        config.maxConcurrency,
        (i) => job(0, `${config.runId}-warmup-${i}`),
        interrupt,
      );
      log('Warmup run completed.');
      if (ok < config.numWarmups)
        log(`(${config.numWarmups - ok} of ${config.numWarmups} warmup requests did not complete)`);
    }
    serverIdentity = (await identity) ?? undefined;
    const starts = !errored && !interrupt.aborted;
    if (starts) {
      log('Starting main benchmark run...');
      for (const line of trafficLines(config)) log(line);
    }
    const warmed =
      starts &&
      opts.warmClient !== false &&
      (await warmClient({
        job: (i) => job(0, `${config.runId}-warm-${i}`),
        target,
        maxConcurrency: config.maxConcurrency,
        signal: interrupt,
      }));
    // Then V8's own threads finish optimising what the warm-up made hot (settle.ts).
    if (warmed) await settleBackground({ signal: interrupt });
    // Keep-alive with a burst start: the first wave's connections are opened before the clock
    // (RunConnections.preconnect), so its TTFT holds no handshakes the later waves never pay.
    // Only a burst: a ramp-up or a self-timed trace keeps request rate inf but paces its start.
    if (starts && connections.mode === 'keep_alive' && arrivals.mode === 'immediate' && config.maxConcurrency)
      await connections.preconnect(Math.min(n, config.maxConcurrency), interrupt);
    events.startClock();
    if (starts) rps?.start();
    events.emit({
      type: 'run.started',
      runId: config.runId,
      startedAtMs: Date.now(),
      numRequests: n,
      maxConcurrency: config.maxConcurrency,
      requestRate: config.requestRate,
      failFast: config.failFast,
      model: config.model,
      baseUrl: config.baseUrl,
      ...(serverIdentity ? { serverIdentity } : {}),
    });
    for (const message of data.warnings) events.emit({ type: 'run.warning', message });
    for (const p of probes) p.start({ emit: (e) => events.emit(e), log });
    const id = (i: number): string => `${prefix}${i}`;
    const promptLen = (i: number): number => data.samples[i].promptLen;
    if (errored) {
      warn(errored);
      run = await skippedDispatch(n, events, id, promptLen, errored);
    } else {
      run = await runDispatch({
        target,
        connections,
        events,
        log,
        offsets: arrivalOffsets(n, arrivals),
        maxConcurrency: config.maxConcurrency,
        failFast: config.failFast,
        prepare: (i) => job(i, id(i)),
        requestId: id,
        promptLen,
        interrupt,
        lastPhaseOf: opts.lastPhaseOf,
        onArrival: rps ? (i) => rps.onArrival(i) : undefined,
        onTimeout: probes.length ? (r) => probes.forEach((p) => p.onTimeout(r)) : undefined,
      });
    }
  } catch (e) {
    await gate?.dispose();
    throw e;
  } finally {
    // Every socket closed (aborted ones included) before anything is written; bounded like a trip's sweep.
    const { forcedSockets } = await connections.sweep(null);
    if (forcedSockets > 0)
      warn(`cleanup: ${forcedSockets} socket(s) had to be destroyed one by one at the end of the run`);
    // Then the probes' captures in progress (each bounded by its own limit), so their keys are in the result.
    extraResult = {
      ...(serverIdentity ? { server_identity: serverIdentity } : {}),
      ...(await finishProbes(probes, log)),
    };
  }
  // Seed-TTS gate, after the benchmark as vLLM-Omni (an interrupt stops it too).
  const seedTts = gate
    ? await gate.evaluate({
        samples: data.samples,
        records: run.records,
        events,
        log,
        signal: interrupt,
        thresholds: config.thresholds,
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
    rpsChangeEvents: rps?.events,
    seedTts,
    extraResult,
    connectionMode,
    interruptCause,
  });
}

function arrivalSpec(config: BenchConfig, timestamps: number[]): ArrivalSpec {
  if (config.dataset.name === 'trace' && config.selfTimed !== false) return { mode: 'self-timed', timestamps };
  if (config.rampUp) return { mode: 'ramp-up', ...config.rampUp, burstiness: config.burstiness, seed: config.seed };
  if (config.requestRate === 'inf') return { mode: 'immediate' };
  return { mode: 'rate', rate: config.requestRate, burstiness: config.burstiness, seed: config.seed };
}
