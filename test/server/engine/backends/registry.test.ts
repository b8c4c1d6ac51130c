/**
 * The backend names and their endpoints, one list for the CLI, the RunSpec,
 * the form and the engine (docs/design.md#backends).
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '#shared/config/backends.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { runSpecIssues } from '#shared/config/runSpec.ts';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { validateBenchConfig } from '#server/engine/run/validate.ts';
import { backendOf } from '#server/engine/backends/index.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

describe('backends', () => {
  it('every name has its engine module', () => {
    for (const b of BACKENDS) expect(backendOf(b).name).toBe(b);
  });

  it('a RunSpec naming the speech backend with the chat endpoint is refused on the endpoint field', () => {
    const spec = { ...CODE2WAV_HANG.spec, backend: 'openai-audio-speech' };
    expect(runSpecIssues(spec)).toContainEqual({
      field: 'endpoint',
      message: "'/v1/chat/completions' must end with audio/speech for openai-audio-speech",
      severity: 'error',
    });
    expect(runSpecIssues({ ...spec, endpoint: '/v1/audio/speech' })).toEqual([]);
  });

  it('the engine refuses an endpoint the backend does not speak, as vLLM-Omni does', () => {
    const c = testBenchConfig('http://127.0.0.1:1', { backend: 'openai-audio-speech' });
    expect(() => validateBenchConfig(c)).toThrow(/must end with audio\/speech/);
    expect(() => validateBenchConfig({ ...c, target: { ...c.target, endpoint: '/v1/audio/speech' } })).not.toThrow();
  });

  it('--backend openai-audio-speech defaults to the speech endpoint; an explicit --endpoint wins', () => {
    const base = ['--model', 'm', '--backend', 'openai-audio-speech'];
    const parsed = parseBenchArgs(base);
    expect(parsed.config.target.endpoint).toBe('/v1/audio/speech');
    const explicit = parseBenchArgs([...base, '--endpoint', '/x/audio/speech']);
    expect(explicit.config.target.endpoint).toBe('/x/audio/speech');
  });
});
