/**
 * The benchmark engine's input: the run configuration of
 * shared/config/runConfig.ts, grouped by what its fields are for (target,
 * workload, dispatch, limits, evidence, accuracy, output). The CLI
 * (`stallscope bench`) and the dashboard (a RunSpec) each build one, once;
 * the engine checks it before anything is sent (see validate.ts).
 */
export type {
  DatasetConfig,
  RampUp,
  RunConfig as BenchConfig,
  SeedTtsEvalConfig,
} from '../../shared/config/runConfig.ts';
export {
  DEFAULT_ASR_CONCURRENCY,
  DEFAULT_ASR_MODEL,
  DEFAULT_ASR_PYTHON,
  DEFAULT_ASR_START_TIMEOUT_S,
  DEFAULT_ASR_TIMEOUT_S,
  DEFAULT_LOCAL_ASR_CONCURRENCY,
} from '../../shared/config/runConfig.ts';
