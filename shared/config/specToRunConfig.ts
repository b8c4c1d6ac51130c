/**
 * RunSpec (what the form submits) → the run configuration (runConfig.ts),
 * pure and once per run: the route checks it (runSpec.ts's `checkRunSpec`)
 * and the run manager runs that same object. An embedded target's URL is only
 * known once its reproduction server listens: the config holds
 * `EMBEDDED_BASE_URL` (loopback) until the run manager sets the real one on it.
 */
import type { RunSpec } from './runSpec.ts';
import { DEFAULT_ASR_CONCURRENCY, DEFAULT_ASR_MODEL, type RunConfig } from './runConfig.ts';

/** An embedded target's base URL until its server listens (loopback: the server-stacks rule reads it). */
export const EMBEDDED_BASE_URL = 'http://127.0.0.1';

export function specToRunConfig(spec: RunSpec, runId: string): RunConfig {
  const d = spec.dataset;
  const t = spec.target;
  const stacks = t.kind === 'url' ? t.serverStacks : undefined;
  const stallAfterS = stacks?.stallAfterS;
  return {
    runId,
    target: {
      baseUrl: (t.kind === 'url' ? t.baseUrl : EMBEDDED_BASE_URL).replace(/\/+$/, ''),
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
              asrUrl: (d.werEval.asrUrl ?? '').trim().replace(/\/+$/, ''),
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
