/**
 * The report both CI outputs are written from: the test case's classname and name are the job and the
 * benchmark, the same for every run of it (never its id or time); each way a run fails has its own failure
 * type, a stall `stall` with its phase and fingerprint, a pass none.
 */
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { ciReport, testcaseClassname, testcaseName, type CiStall } from '#server/cli/ciOutput/ciReport.ts';
import { RunEvidence } from '#server/cli/ciOutput/runEvidence.ts';
import type { RunSummary } from '#shared/protocol/protocol.ts';

const GITLAB = { GITLAB_CI: 'true', CI_PROJECT_PATH: 'omni/serving', CI_JOB_NAME: 'seed-tts', CI_PIPELINE_IID: '9' };

const counts = (over: Partial<RunSummary['counts']> = {}): RunSummary['counts'] => ({
  total: 2,
  completed: 2,
  failed: 0,
  timedOut: 0,
  cancelledAfterTimeout: 0,
  cancelled: 0,
  errored: 0,
  unsent: 0,
  ...over,
});

function summary(verdict: RunSummary['verdict'], over: Partial<RunSummary> = {}): RunSummary {
  return {
    verdict,
    verdictReasons: ['why'],
    counts: counts(),
    durationS: 1,
    breakerTripped: false,
    cause: null,
    metrics: {},
    ...over,
  };
}

const STALL: CiStall = {
  source: 'board',
  fingerprint: '0123456789ab',
  phase: 'hift',
  label: 'hift/blockOnDeviceSync',
  stack: [],
  boardSentence: null,
};

describe('the test case: the job and the benchmark, stable across runs', () => {
  it('classname from the CI job (pipeline.step), name from backend, dataset, locale and label', () => {
    const args = ['--model', 'm', '--dataset-name', 'seed-tts', '--seed-tts-locale', 'zh', '--label', 'nightly'];
    const a = parseBenchArgs(args, GITLAB).config;
    const b = parseBenchArgs(args, { ...GITLAB, CI_PIPELINE_IID: '10' }).config;
    expect(a.runId).not.toBe(b.runId);
    for (const c of [a, b]) {
      expect(testcaseClassname(c)).toBe('omni/serving.seed-tts');
      expect(testcaseName(c)).toBe('openai-chat-omni · seed-tts zh · nightly');
    }
    const local = parseBenchArgs(['--model', 'm', '--backend', 'openai-audio-speech'], {}).config;
    expect(testcaseClassname(local)).toBe('stallscope.openai-audio-speech');
    expect(testcaseName(local)).toBe('openai-audio-speech · random');
  });
});

describe('the failure type', () => {
  const config = (extra: string[] = []) => parseBenchArgs(['--model', 'm', ...extra], GITLAB).config;
  const type = (s: RunSummary, c = config(), stall: CiStall | null = null, result: Record<string, unknown> = {}) =>
    ciReport({ config: c, summary: s, result, evidence: new RunEvidence(), stall, dashboard: null, notes: [] }).failure;

  it('a stall is `stall`, naming its phase and fingerprint; a pass has none', () => {
    const s = summary('failed_closed', {
      verdictReasons: ['failed closed: a partial run never passes', '1 request timed out'],
    });
    expect(type(s, config(), STALL)).toEqual({
      type: 'stall',
      message: 'stalled in phase hift, fingerprint 0123456789ab (hift/blockOnDeviceSync): 1 request timed out',
    });
    expect(type(summary('passed'))).toBeNull();
  });

  it('errors, a threshold, the accuracy gate, a stop rule, an interrupt and a run that could not start: each its own', () => {
    expect(type(summary('failed', { counts: counts({ completed: 1, failed: 1, errored: 1 }) }))?.type).toBe('errors');
    const slow = config(['--threshold', 'mean_ttft_ms<=100']);
    expect(type(summary('failed'), slow, null, { mean_ttft_ms: 250 })?.type).toBe('threshold');
    const gate = config(['--dataset-name', 'seed-tts', '--seed-tts-wer-eval', '--asr-url', 'http://127.0.0.1:1']);
    expect(type(summary('failed'), gate)?.type).toBe('accuracy');
    const gated = config([
      '--seed-tts-wer-eval',
      '--asr-url',
      'http://127.0.0.1:1',
      '--threshold',
      'seed_tts_content_error_mean<=0.05',
    ]);
    expect(type(summary('failed'), gated, null, { seed_tts_content_error_mean: 0.2 })?.type).toBe('accuracy');
    const stopped = summary('failed_closed', {
      stoppedBy: { kind: 'error_rate', rule: 'error_rate>0.5', atS: 1, value: 0.6, requests: [], omitted: 0 },
    });
    expect(type(stopped)?.type).toBe('stopped.error_rate');
    expect(type(summary('interrupted'))?.type).toBe('interrupted');
    expect(type(summary('errored'))?.type).toBe('errored');
  });
});
