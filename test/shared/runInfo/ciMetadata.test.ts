/** Each CI provider's variables land under the same keys; outside CI, nothing. */
import { describe, expect, it } from 'vitest';
import { CI_METADATA_KEYS, detectCiMetadata } from '#shared/runInfo/ciMetadata.ts';

describe('detectCiMetadata', () => {
  it('Buildkite: every key from its own variable', () => {
    expect(
      detectCiMetadata({
        BUILDKITE: 'true',
        BUILDKITE_BUILD_NUMBER: '14607',
        BUILDKITE_BUILD_URL: 'https://buildkite.com/vllm/vllm-omni/builds/14607',
        BUILDKITE_JOB_ID: '0190-abcd',
        BUILDKITE_AGENT_NAME: 'amd-mi300-node-3',
        BUILDKITE_COMMIT: 'a1b2c3d',
        BUILDKITE_PIPELINE_SLUG: 'vllm-omni',
        BUILDKITE_LABEL: 'minicpmo-accuracy',
        GITHUB_ACTIONS: 'true', // a provider's own flag wins over another's stray variable
      }),
    ).toEqual({
      ci_provider: 'buildkite',
      ci_build: '14607',
      ci_build_url: 'https://buildkite.com/vllm/vllm-omni/builds/14607',
      ci_job: '0190-abcd',
      ci_node: 'amd-mi300-node-3',
      ci_commit: 'a1b2c3d',
      ci_pipeline: 'vllm-omni',
      ci_step: 'minicpmo-accuracy',
      ci_step_label: 'minicpmo-accuracy',
    });
  });

  it("Buildkite: the step is the step's key when set, so a renamed label keeps its job; the label beside it", () => {
    const env = { BUILDKITE: 'true', BUILDKITE_PIPELINE_SLUG: 'vllm-omni', BUILDKITE_STEP_KEY: 'minicpmo-accuracy' };
    const before = detectCiMetadata({ ...env, BUILDKITE_LABEL: ':rocm: MiniCPM-o 4.5 accuracy' });
    const after = detectCiMetadata({ ...env, BUILDKITE_LABEL: ':rocm: MiniCPM-o 4.5 accuracy (MI325)' });
    expect(before).toMatchObject({ ci_step: 'minicpmo-accuracy', ci_step_label: ':rocm: MiniCPM-o 4.5 accuracy' });
    expect(after).toMatchObject({
      ci_step: 'minicpmo-accuracy',
      ci_step_label: ':rocm: MiniCPM-o 4.5 accuracy (MI325)',
    });
    // A blank key is no key: the label is the step, as before keys existed.
    expect(detectCiMetadata({ ...env, BUILDKITE_STEP_KEY: ' ', BUILDKITE_LABEL: 'acc' })).toMatchObject({
      ci_step: 'acc',
      ci_step_label: 'acc',
    });
  });

  it('GitHub Actions: the run number, its URL, the job instance, the runner', () => {
    expect(
      detectCiMetadata({
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_NUMBER: '812',
        GITHUB_RUN_ID: '9988776655',
        GITHUB_RUN_ATTEMPT: '2',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'vllm-project/vllm-omni',
        GITHUB_WORKFLOW: 'nightly',
        GITHUB_JOB: 'accuracy',
        GITHUB_SHA: 'deadbeef',
        RUNNER_NAME: 'gpu-runner-7',
      }),
    ).toEqual({
      ci_provider: 'github',
      ci_build: '812',
      ci_build_url: 'https://github.com/vllm-project/vllm-omni/actions/runs/9988776655',
      ci_job: '9988776655/2/accuracy',
      ci_node: 'gpu-runner-7',
      ci_commit: 'deadbeef',
      ci_pipeline: 'vllm-project/vllm-omni/nightly',
      ci_step: 'accuracy',
    });
  });

  it("GitHub Actions: the run URL only from all three of server, repository and run id (a GHES server's own host)", () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_SERVER_URL: 'https://ghe.example.com',
      GITHUB_REPOSITORY: 'omni/serving',
      GITHUB_RUN_ID: '42',
    };
    expect(detectCiMetadata(env).ci_build_url).toBe('https://ghe.example.com/omni/serving/actions/runs/42');
    for (const k of ['GITHUB_SERVER_URL', 'GITHUB_REPOSITORY', 'GITHUB_RUN_ID'] as const)
      expect(detectCiMetadata({ ...env, [k]: undefined }).ci_build_url, k).toBeUndefined();
    expect(detectCiMetadata(env).ci_step_label).toBeUndefined();
  });

  it('GitLab CI: the pipeline iid, its URL, the job, the runner', () => {
    expect(
      detectCiMetadata({
        GITLAB_CI: 'true',
        CI_PIPELINE_IID: '311',
        CI_PIPELINE_ID: '123456',
        CI_PIPELINE_URL: 'https://gitlab.example/omni/-/pipelines/123456',
        CI_JOB_ID: '777',
        CI_RUNNER_DESCRIPTION: 'gpu-1',
        CI_COMMIT_SHA: 'cafe',
        CI_PROJECT_PATH: 'omni/serving',
        CI_JOB_NAME: 'seed-tts',
      }),
    ).toEqual({
      ci_provider: 'gitlab',
      ci_build: '311',
      ci_build_url: 'https://gitlab.example/omni/-/pipelines/123456',
      ci_job: '777',
      ci_node: 'gpu-1',
      ci_commit: 'cafe',
      ci_pipeline: 'omni/serving',
      ci_step: 'seed-tts',
    });
  });

  it('outside CI nothing; unset or blank variables are left out; values are trimmed and bounded', () => {
    expect(detectCiMetadata({ HOME: '/root', CI: 'true' })).toEqual({});
    const r = detectCiMetadata({
      BUILDKITE: 'true',
      BUILDKITE_BUILD_NUMBER: ' 7 ',
      BUILDKITE_LABEL: '',
      BUILDKITE_AGENT_NAME: 'n'.repeat(600),
    });
    expect(r).toEqual({ ci_provider: 'buildkite', ci_build: '7', ci_node: 'n'.repeat(512) });
    for (const k of Object.keys(r)) expect(CI_METADATA_KEYS).toContain(k);
  });
});
