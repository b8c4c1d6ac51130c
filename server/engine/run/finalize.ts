/**
 * After the dispatch: counts, metrics, verdict, the result dict (vLLM keys
 * plus ours), the result file, and `run.finished`. Runs after every socket
 * of the run was closed (see engine.ts).
 */
import { requestStageMetrics } from '../../../shared/vllmResult/requestStageMetrics.ts';
import { modelMismatch, type ServerIdentity } from '../../../shared/runInfo/serverIdentity.ts';
import { join } from 'node:path';
import { calculateMetrics } from '../../../shared/metrics/index.ts';
import type { RunSummary } from '../../../shared/protocol/protocol.ts';
import type { RequestEndStatus } from '../../../shared/types.ts';
import type { RecordList } from '../../../shared/metrics/input.ts';
import type { RequestTable } from '../records/requestTable.ts';
import { evaluateVerdict } from '../../../shared/runInfo/verdict.ts';
import { effectiveStopRules } from '../../../shared/config/stopRules.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { ConnectionMode, InterruptCause } from '../../../shared/types.ts';
import { countStatuses } from '../records/counts.ts';
import type { DispatchResult } from '../dispatch/dispatch.ts';
import type { RunEvents } from '../records/events.ts';
import { buildResultJson, type ResultJsonInput, type RpsChangeEvent } from '../../../shared/vllmResult/resultJson.ts';
import { resultFilename, writeResult } from '../results/resultFile.ts';
import { gateCounts } from '../accuracy/gate.ts';
import type { SeedTtsEvaluation } from '../accuracy/evaluate.ts';
import type { Backend } from '../backends/backend.ts';

export interface FinalizeInput {
  config: RunConfig;
  run: DispatchResult;
  events: RunEvents;
  /** Why the run could not start (ready check), or null. */
  errored: string | null;
  /** Ramp-up runs: the whole-RPS steps and when they were reached. */
  rpsChangeEvents?: RpsChangeEvent[];
  /** Keys the run probes add after ours (e.g. `server_stacks`). */
  extraResult?: Record<string, unknown>;
  log: (line: string) => void;
  connectionMode: ConnectionMode;
  /** Who interrupted the run (null: not interrupted). */
  interruptCause: InterruptCause | null;
  /** The Seed-TTS gate's evaluation (`--seed-tts-wer-eval`), or null. */
  seedTts?: SeedTtsEvaluation | null;
  /** The backend's own result keys (backends/backend.ts `resultKeys`), written after vLLM's metrics. */
  backendKeys?: Backend['resultKeys'];
}

/** What a benchmark run ends with: the summary, the vLLM result dict, the records and where the file went. */
export interface BenchOutcome {
  summary: RunSummary;
  result: Record<string, unknown>;
  /** Every request's record, column-wise: read them with `at(i)` or iterate. */
  records: RequestTable;
  statuses: RecordList<RequestEndStatus>;
  resultFile: string | null;
}

/**
 * Warnings the server's identity gives (a requested model its /v1/models does not list): reasons, not a verdict —
 * the failed requests' 404s already decide it; this says why they failed.
 */
function identityWarnings(extra: Record<string, unknown> | undefined, config: FinalizeInput['config']): string[] {
  const mismatch = modelMismatch(extra?.server_identity as ServerIdentity | undefined, config.target.model);
  return mismatch ? [`warning: ${mismatch}`] : [];
}

export async function finishBenchmark({
  config,
  run,
  events,
  errored,
  log,
  rpsChangeEvents,
  connectionMode,
  interruptCause,
  seedTts,
  extraResult,
  backendKeys,
}: FinalizeInput): Promise<BenchOutcome> {
  const counts = countStatuses(run.statuses, run.stoppedBy);
  const metrics = calculateMetrics(run.records, {
    durationS: run.durationS,
    percentileMetrics: config.output.percentileMetrics,
    metricPercentiles: config.output.metricPercentiles,
    goodput: config.output.goodput,
  });
  const judged = evaluateVerdict({
    counts,
    // Thresholds may name the seed_tts_* keys (the WER gate is a --threshold).
    metrics: seedTts ? { ...metrics, ...seedTts.keys } : metrics,
    thresholds: config.output.thresholds,
    interrupted: run.interrupted || Boolean(seedTts?.interrupted),
    interruptCause,
    errored: errored !== null,
    seedTts: seedTts ? gateCounts(seedTts.keys) : null,
    stoppedBy: run.stopRule,
  });
  let verdict = judged.verdict;
  const verdictReasons = [...judged.reasons, ...(errored ? [errored] : []), ...identityWarnings(extraResult, config)];
  const date = new Date();
  const result = buildResultJson({
    date,
    backend: config.target.backend,
    label: config.output.label ?? null,
    modelId: config.target.model,
    numPrompts: config.workload.numPrompts,
    metadata: Object.entries(config.output.metadata ?? {}),
    requestRate: config.dispatch.requestRate === 'inf' ? Infinity : config.dispatch.requestRate,
    burstiness: config.dispatch.burstiness,
    maxConcurrency: config.dispatch.maxConcurrency,
    rampUp: config.dispatch.rampUp,
    rpsChangeEvents,
    metrics,
    detailed: config.output.save?.detailed ?? false,
    records: run.records,
    statuses: run.statuses,
    counts,
    failFast: breakerOf(config, run),
    verdict,
    verdictReasons,
    run: { connectionMode, interruptCause, cleanupForcedSockets: run.cleanupForcedSockets },
    seedTts: seedTts?.keys,
    backendKeys: backendKeys?.(run.records, config.output.save?.detailed ?? false, config),
    requestStageMetrics: requestStageMetrics(run.records),
  });
  Object.assign(result, extraResult);

  let resultFile: string | null = null;
  if (config.output.save) {
    const name =
      config.output.save.filename ??
      resultFilename({
        label: config.output.label ?? null,
        backend: config.target.backend,
        requestRate: config.dispatch.requestRate === 'inf' ? Infinity : config.dispatch.requestRate,
        maxConcurrency: config.dispatch.maxConcurrency,
        modelId: config.target.model,
        date,
        rampUp: config.dispatch.rampUp,
      });
    resultFile = join(config.output.save.dir, name);
    try {
      await writeResult(resultFile, result, { append: config.output.save.append });
    } catch (e) {
      // The run happened; a full disk must not turn it into a crash. But a CI job that
      // asked for the file must not pass without it: the verdict fails, saying why.
      const message = `could not write the result to ${resultFile}: ${(e as Error).message}`;
      log(message);
      events.emit({ type: 'run.warning', message });
      resultFile = null;
      if (verdict === 'passed') verdict = 'failed';
      verdictReasons.push(message);
      result.verdict = verdict;
      result.verdict_reasons = [...verdictReasons];
    }
  }

  const summary: RunSummary = {
    verdict,
    verdictReasons,
    counts,
    durationS: run.durationS,
    breakerTripped: run.breakerTripped,
    cause: run.cause,
    stoppedBy: run.stopRule,
    metrics: scalarKeys(result),
    resultFile,
  };
  events.emit({ type: 'run.finished', summary });
  return { summary, result, records: run.records, statuses: run.statuses, resultFile };
}

/**
 * The breaker as the result writes it: armed by any stop rule (fail-fast's
 * `timeouts>=1` among them, listed in `stop_on`), tripped by any.
 */
function breakerOf(config: RunConfig, run: DispatchResult): ResultJsonInput['failFast'] {
  return {
    enabled: config.limits.failFast || Boolean(config.limits.stopOn?.length),
    tripped: run.breakerTripped,
    cause: run.cause,
    stopOn: effectiveStopRules(config.limits.stopOn, config.limits.failFast).map((r) => r.text),
    stoppedBy: run.stopRule,
  };
}

/** The result's flat keys (numbers, strings, nulls): what `run.finished` carries as the summary's metrics. */
function scalarKeys(result: Record<string, unknown>): RunSummary['metrics'] {
  const scalars: RunSummary['metrics'] = {};
  for (const [k, v] of Object.entries(result)) {
    if (typeof v === 'number' || typeof v === 'string' || v === null) scalars[k] = v;
  }
  return scalars;
}
