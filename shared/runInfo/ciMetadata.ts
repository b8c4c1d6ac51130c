/**
 * Where a run ran, read from the CI environment it runs in, under one set of
 * keys whatever the provider: a nightly's runs on Buildkite, GitHub Actions
 * or GitLab CI can then be grouped by build, node, commit and job. Pure: the
 * caller passes the environment (the CLI its own, the dashboard none).
 */
export const CI_METADATA_KEYS = [
  'ci_provider',
  'ci_build',
  'ci_build_url',
  'ci_job',
  'ci_node',
  'ci_commit',
  'ci_pipeline',
  'ci_step',
  'ci_step_label',
] as const;
export type CiMetadataKey = (typeof CI_METADATA_KEYS)[number];
export type CiMetadata = Partial<Record<CiMetadataKey, string>>;

type Env = Readonly<Record<string, string | undefined>>;

type Read = (env: Env) => string | undefined;
/** The provider's variable (or value built from variables) for each key; a step's label only where it differs from the step. */
type Mapping = Record<Exclude<CiMetadataKey, 'ci_provider' | 'ci_step_label'>, Read> & { ci_step_label?: Read };

const v = (name: string) => (env: Env) => env[name];

const PROVIDERS: { name: string; detect: (env: Env) => boolean; keys: Mapping }[] = [
  {
    name: 'buildkite',
    detect: (env) => env.BUILDKITE === 'true' || env.BUILDKITE_BUILD_NUMBER !== undefined,
    keys: {
      ci_build: v('BUILDKITE_BUILD_NUMBER'),
      ci_build_url: v('BUILDKITE_BUILD_URL'),
      ci_job: v('BUILDKITE_JOB_ID'),
      ci_node: v('BUILDKITE_AGENT_NAME'),
      ci_commit: v('BUILDKITE_COMMIT'),
      ci_pipeline: v('BUILDKITE_PIPELINE_SLUG'),
      // The step's key when the pipeline gives it one: a label is for people and gets renamed (":rocm: MiniCPM-o
      // 4.5 accuracy"), and a job is grouped by its step, so a renamed label would split its history.
      ci_step: (env) => env.BUILDKITE_STEP_KEY?.trim() || env.BUILDKITE_LABEL,
      ci_step_label: v('BUILDKITE_LABEL'),
    },
  },
  {
    name: 'github',
    detect: (env) => env.GITHUB_ACTIONS === 'true',
    keys: {
      ci_build: v('GITHUB_RUN_NUMBER'),
      ci_build_url: (env) =>
        env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
          ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
          : undefined,
      // A job instance: the run, its attempt and the job (GitHub exposes no job instance id).
      ci_job: (env) =>
        env.GITHUB_RUN_ID && env.GITHUB_JOB
          ? `${env.GITHUB_RUN_ID}/${env.GITHUB_RUN_ATTEMPT ?? '1'}/${env.GITHUB_JOB}`
          : undefined,
      ci_node: v('RUNNER_NAME'),
      ci_commit: v('GITHUB_SHA'),
      ci_pipeline: (env) =>
        env.GITHUB_REPOSITORY && env.GITHUB_WORKFLOW
          ? `${env.GITHUB_REPOSITORY}/${env.GITHUB_WORKFLOW}`
          : (env.GITHUB_WORKFLOW ?? env.GITHUB_REPOSITORY),
      // The job's id in its workflow file (`jobs.<id>`): stable across runs, unlike its display name.
      ci_step: v('GITHUB_JOB'),
    },
  },
  {
    name: 'gitlab',
    detect: (env) => env.GITLAB_CI === 'true',
    keys: {
      ci_build: (env) => env.CI_PIPELINE_IID ?? env.CI_PIPELINE_ID,
      ci_build_url: v('CI_PIPELINE_URL'),
      ci_job: v('CI_JOB_ID'),
      ci_node: (env) => env.CI_RUNNER_DESCRIPTION ?? env.CI_RUNNER_ID,
      ci_commit: v('CI_COMMIT_SHA'),
      ci_pipeline: v('CI_PROJECT_PATH'),
      ci_step: v('CI_JOB_NAME'),
    },
  },
];

/** The most characters of one value kept (a metadata value's limit on the dashboard is 512). */
const MAX_VALUE = 512;

/**
 * The CI metadata of `env`, or `{}` outside a known CI. Keys whose variables
 * are unset or empty are left out; values are trimmed and cut to 512 characters.
 */
export function detectCiMetadata(env: Env): CiMetadata {
  const p = PROVIDERS.find((x) => x.detect(env));
  if (!p) return {};
  const out: CiMetadata = { ci_provider: p.name };
  for (const [key, read] of Object.entries(p.keys) as [Exclude<CiMetadataKey, 'ci_provider'>, Read][]) {
    const value = read(env)?.trim();
    if (value) out[key] = value.slice(0, MAX_VALUE);
  }
  return out;
}
