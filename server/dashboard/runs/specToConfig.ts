/**
 * RunSpec (what the form submits) → BenchConfig (what the engine runs) and
 * the server-stacks probe's settings. The embedded repro server's URL is only
 * known once it listens, so it is passed in.
 */
import type { RunSpec } from '../../../shared/config/runSpec.ts';
import { DEFAULT_ASR_CONCURRENCY, DEFAULT_ASR_MODEL, type BenchConfig } from '../../engine/config.ts';
import type { ServerStacksConfig } from '../../engine/probes/serverStacks/config.ts';
import type { LivenessSettings } from '../../engine/probes/liveness/index.ts';

export function specToConfig(spec: RunSpec, runId: string, baseUrl: string): BenchConfig {
  const d = spec.dataset;
  return {
    runId,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    endpoint: spec.endpoint,
    backend: spec.backend,
    model: spec.model,
    label: spec.label ?? null,
    apiKey: spec.target.kind === 'url' ? (spec.target.apiKey ?? null) : null,
    ...(spec.target.kind === 'url' && spec.target.insecure ? { insecure: true } : {}),
    metadata: spec.metadata,
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
    maxConcurrency: spec.maxConcurrency,
    requestRate: spec.requestRate,
    burstiness: spec.burstiness,
    selfTimed: spec.selfTimed,
    seed: spec.seed,
    numWarmups: spec.numWarmups,
    ...(spec.readyCheckTimeoutS ? { readyCheckTimeoutS: spec.readyCheckTimeoutS } : {}),
    extraBody: spec.extraBody,
    percentileMetrics: spec.percentileMetrics,
    metricPercentiles: spec.metricPercentiles,
    timeouts: { totalS: spec.timeouts.totalS, firstByteS: spec.timeouts.firstByteS, idleS: spec.timeouts.idleS },
    failFast: spec.failFast,
    ...(spec.stopOn?.length ? { stopOn: [...spec.stopOn] } : {}),
    connectionMode: spec.connectionMode ?? 'per_request',
    thresholds: spec.thresholds,
    ...(spec.goodput ? { goodput: spec.goodput } : {}),
    ...(spec.rampUp ? { rampUp: spec.rampUp } : {}),
    save: null,
    seedTtsEval:
      d.name === 'seed-tts' && d.werEval?.enabled
        ? {
            asrUrl: (d.werEval.asrUrl ?? '').trim().replace(/\/+$/, ''),
            asrModel: d.werEval.asrModel ?? DEFAULT_ASR_MODEL,
            asrConcurrency: d.werEval.asrConcurrency ?? DEFAULT_ASR_CONCURRENCY,
            saveItems: d.werEval.saveItems ?? false,
          }
        : null,
  };
}

/**
 * The server-stacks probe's settings for a URL target with "Capture server
 * stacks": at the first structural timeout, and after the stall threshold
 * when one is given. Embedded targets have the watchdog instead.
 */
export function specServerStacks(spec: RunSpec): ServerStacksConfig | undefined {
  if (spec.target.kind !== 'url' || !spec.target.serverStacks) return undefined;
  const s = spec.target.serverStacks;
  return { pid: s.pid, captureOnTimeout: true, stallAfterS: s.stallAfterS, native: s.native ?? false };
}

/**
 * The liveness probe's settings (on by default, docs/design.md#liveness-at-stall):
 * a URL target's stall threshold (`serverStacks.stallAfterS`) starts it too.
 */
export function specLiveness(spec: RunSpec): LivenessSettings {
  if (spec.livenessAtStall === false) return { enabled: false };
  const stallAfterS = spec.target.kind === 'url' ? spec.target.serverStacks?.stallAfterS : undefined;
  return { enabled: true, ...(stallAfterS !== undefined ? { stallAfterS } : {}) };
}

/** `--fault` flags of `stallscope repro-server` for the spec's fault plan. */
export function faultFlags(faults: Extract<RunSpec['target'], { kind: 'embedded' }>['faults']): string[] {
  return faults.flatMap((f) => {
    let s = `${f.phase}:${f.kind}`;
    if (f.after !== undefined) s += `:after=${f.after}`;
    if (f.p !== undefined) s += `:p=${f.p}`;
    if (f.minInflight !== undefined) s += `:min-inflight=${f.minInflight}`;
    return ['--fault', s];
  });
}
