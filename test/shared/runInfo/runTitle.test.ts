import { describe, expect, it } from 'vitest';
import { ciBuildHref, runTitle } from '../../../shared/runInfo/runTitle.js';

describe('runTitle', () => {
  it('names a CI run by build, node and step', () => {
    expect(runTitle({ ci_build: '14607', ci_node: 'mi325-agent-2', ci_step: 'minicpmo-accuracy', ci_job: 'j-1' })).toBe(
      'build 14607 · mi325-agent-2 · minicpmo-accuracy',
    );
  });
  it('falls back to the job when there is no step, and skips what is missing', () => {
    expect(runTitle({ ci_node: 'gpu-3', ci_job: '018f-aa' })).toBe('gpu-3 · 018f-aa');
  });
  it('is null for a run without CI metadata', () => {
    expect(runTitle({ team: 'audio' })).toBeNull();
    expect(runTitle(undefined)).toBeNull();
  });
});

describe('ciBuildHref', () => {
  it('links http and https URLs', () => {
    expect(ciBuildHref('https://buildkite.com/vllm/ci/builds/14607')).toBe(
      'https://buildkite.com/vllm/ci/builds/14607',
    );
    expect(ciBuildHref('http://ci.local/b/1')).toBe('http://ci.local/b/1');
    expect(ciBuildHref('HTTPS://CI.local/b')).toBe('HTTPS://CI.local/b');
  });
  it('keeps every other scheme, and non-URLs, as text', () => {
    expect(ciBuildHref('javascript:alert(1)')).toBeNull();
    expect(ciBuildHref('file:///etc/passwd')).toBeNull();
    expect(ciBuildHref('build 14607')).toBeNull();
    expect(ciBuildHref('')).toBeNull();
    expect(ciBuildHref('https://')).toBeNull();
    expect(ciBuildHref('https:///path')).toBeNull();
    expect(ciBuildHref('https://ci.local/b 1')).toBeNull();
    expect(ciBuildHref('https://ci.local/"><script>')).toBeNull();
  });
});
