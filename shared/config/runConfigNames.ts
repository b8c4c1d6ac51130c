/**
 * What each interface calls a run configuration's field: the RunSpec's dotted
 * field (the form and `POST /api/runs`) and `stallscope bench`'s flag. The
 * one validator (runConfigIssues.ts) names fields by config path and words
 * its messages through one of these, so a mistake reads the same through the
 * CLI and the API, each naming the field its own way.
 */

/** A field's names: `spec` in a RunSpec, `flag` on the command line; absent when that interface has none. */
export interface FieldNames {
  spec?: string;
  flag?: string;
}

/** Config path (e.g. `limits.timeouts.totalS`) → its names. A path not here is named as it is. */
export const RUN_CONFIG_NAMES: Readonly<Record<string, FieldNames>> = {
  'target.backend': { spec: 'backend', flag: '--backend' },
  'target.baseUrl': { spec: 'target.baseUrl', flag: '--base-url' },
  'target.endpoint': { spec: 'endpoint', flag: '--endpoint' },
  'target.model': { spec: 'model', flag: '--model' },
  'target.apiKey': { spec: 'target.apiKey' },
  'target.headers': { flag: '--header' },
  'workload.numPrompts': { spec: 'numPrompts', flag: '--num-prompts' },
  'workload.turnsPerSession': { spec: 'turnsPerSession', flag: '--seed-tts-turns-per-session' },
  'workload.seed': { spec: 'seed', flag: '--seed' },
  'workload.extraBody': { spec: 'extraBody', flag: '--extra-body' },
  'workload.dataset': { spec: 'dataset', flag: '--dataset-name' },
  'workload.dataset.name': { spec: 'dataset.name', flag: '--dataset-name' },
  'workload.dataset.path': { spec: 'dataset.path', flag: '--dataset-path' },
  'workload.dataset.inputLen': { spec: 'dataset.inputLen', flag: '--random-input-len' },
  'workload.dataset.outputLen': {
    spec: 'dataset.outputLen',
    flag: '--random-output-len / --output-len / --hf-output-len',
  },
  'workload.dataset.rangeRatio': { flag: '--random-range-ratio' },
  'dispatch.maxConcurrency': { spec: 'maxConcurrency', flag: '--max-concurrency' },
  'dispatch.requestRate': { spec: 'requestRate', flag: '--request-rate' },
  'dispatch.burstiness': { spec: 'burstiness', flag: '--burstiness' },
  'dispatch.selfTimed': { spec: 'selfTimed', flag: '--self-timed' },
  'dispatch.rampUp': { spec: 'rampUp', flag: '--ramp-up-strategy' },
  'dispatch.rampUp.strategy': { spec: 'rampUp.strategy', flag: '--ramp-up-strategy' },
  'dispatch.rampUp.startRps': { spec: 'rampUp.startRps', flag: '--ramp-up-start-rps' },
  'dispatch.rampUp.endRps': { spec: 'rampUp.endRps', flag: '--ramp-up-end-rps' },
  'dispatch.numWarmups': { spec: 'numWarmups', flag: '--num-warmups' },
  'dispatch.readyCheckTimeoutS': { spec: 'readyCheckTimeoutS', flag: '--ready-check-timeout-sec' },
  'limits.timeouts.totalS': { spec: 'timeouts.totalS', flag: '--omni-request-timeout-s' },
  'limits.timeouts.firstByteS': { spec: 'timeouts.firstByteS', flag: '--first-byte-timeout-s' },
  'limits.timeouts.idleS': { spec: 'timeouts.idleS', flag: '--idle-timeout-s' },
  'limits.failFast': { spec: 'failFast', flag: '--omni-fail-fast-on-timeout' },
  'limits.stopOn': { spec: 'stopOn', flag: '--stop-on' },
  'evidence.serverStacks.pid': { spec: 'target.serverStacks.pid', flag: '--server-pid' },
  'evidence.serverStacks.stallAfterS': { spec: 'target.serverStacks.stallAfterS', flag: '--server-stall-after-s' },
  'evidence.serverStacks.rulesFile': { flag: '--server-phase-rules' },
  'accuracy.seedTtsEval': { spec: 'dataset.werEval.enabled', flag: '--seed-tts-wer-eval' },
  'accuracy.seedTtsEval.asrUrl': { spec: 'dataset.werEval.asrUrl', flag: '--asr-url' },
  'accuracy.seedTtsEval.asrModel': { spec: 'dataset.werEval.asrModel', flag: '--asr-model' },
  'accuracy.seedTtsEval.asrConcurrency': { spec: 'dataset.werEval.asrConcurrency', flag: '--asr-concurrency' },
  'accuracy.seedTtsEval.asrTimeoutS': { flag: '--asr-timeout-s' },
  'accuracy.seedTtsEval.localAsr.python': { flag: '--asr-python' },
  'accuracy.seedTtsEval.localAsr.startTimeoutS': { flag: '--asr-start-timeout-s' },
  'output.save.filename': { flag: '--result-filename' },
  'output.percentileMetrics': { spec: 'percentileMetrics', flag: '--percentile-metrics' },
  'output.metricPercentiles': { spec: 'metricPercentiles', flag: '--metric-percentiles' },
  'output.thresholds': { spec: 'thresholds', flag: '--threshold' },
  'output.goodput': { spec: 'goodput', flag: '--goodput' },
};

/** Names a config path for one interface. */
export type NameOf = (path: string) => string;

/** The RunSpec's name of a config path (the path itself when the spec has none). */
export const specName: NameOf = (path) => RUN_CONFIG_NAMES[path]?.spec ?? path;

/** The CLI flag of a config path (the path itself when no flag sets it). */
export const flagName: NameOf = (path) => RUN_CONFIG_NAMES[path]?.flag ?? path;

/** The flag of a config path, or null: what the CLI adds to a refusal that does not name it. */
export function flagOf(path: string): string | null {
  return RUN_CONFIG_NAMES[path]?.flag ?? null;
}
