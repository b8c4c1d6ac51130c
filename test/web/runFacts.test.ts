/** What the run header says of a run's target and load, and of a run whose clock has not started. */
import { describe, expect, it } from 'vitest';
import { loadWords, startingWords, targetWords } from '#web/state/runFacts.ts';
import type { RunModel } from '#shared/runView/runModel.ts';

const detail = (over: Partial<Parameters<typeof targetWords>[0]> = {}) => ({
  source: 'dashboard' as const,
  target: null,
  maxConcurrency: null,
  requestRate: null,
  config: null,
  importInfo: null,
  ...over,
});
const info: NonNullable<RunModel['info']> = {
  runId: 'ci-1',
  startedAtMs: 1,
  numRequests: 1088,
  maxConcurrency: 10,
  requestRate: 'inf',
  failFast: true,
  model: 'm',
  baseUrl: 'http://user:secret@gpu-7:8000',
};

describe('run facts', () => {
  // Caught: the header's `detail.requestRate ?? '?'` and `detail.target ?? 'target unknown'`.
  it('take a reported run’s target and load from its run.started when it came without a config', () => {
    const cli = detail({ source: 'cli' });
    expect(targetWords(cli, null)).toBe('target not reported yet');
    expect(loadWords(cli, null)).toBeNull();
    expect(targetWords(cli, info)).toBe('http://***@gpu-7:8000');
    expect(loadWords(cli, info)).toBe('concurrency 10 · rate inf');
  });

  it('name an import’s file instead of an unknown target, and never print a bare "?"', () => {
    const imp = detail({ source: 'import', importInfo: { file: 'nightly-1088.json' }, requestRate: 'inf' });
    expect(targetWords(imp, null)).toBe('imported from nightly-1088.json');
    expect(targetWords(detail({ source: 'import' }), null)).toBe('imported from a result file');
    expect(loadWords(imp, null)).toBe('concurrency ∞ · rate inf');
    expect(loadWords(detail({ config: { numPrompts: 3 } }), null)).toBe('concurrency ∞');
  });

  it('say what the stored detail says first, with thousands separators', () => {
    const d = detail({ target: 'embedded', maxConcurrency: 1200, requestRate: 'linear 1→20' });
    expect(targetWords(d, info)).toBe('embedded');
    expect(loadWords(d, info)).toBe('concurrency 1,200 · rate linear 1→20');
  });

  // Caught: "elapsed 0.0 s, total 0" for the ~2.5 s the embedded reproduction server takes to start.
  it('say what a running run does before its clock starts, and nothing once it started or ended', () => {
    expect(startingWords({ source: 'dashboard', target: 'embedded' }, { info: null }, true)).toBe(
      'starting the reproduction server',
    );
    expect(startingWords({ source: 'cli', target: null }, { info: null }, true)).toBe(
      'waiting for the reporting CLI to start the run',
    );
    expect(startingWords({ source: 'dashboard', target: 'http://x:1' }, { info: null }, true)).toBe(
      'checking that the target is ready',
    );
    expect(startingWords({ source: 'dashboard', target: 'embedded' }, { info }, true)).toBeNull();
    expect(startingWords({ source: 'dashboard', target: 'embedded' }, { info: null }, false)).toBeNull();
  });
});
