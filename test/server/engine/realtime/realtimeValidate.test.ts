/**
 * The realtime backends' refusals, made by validateBenchConfig before
 * anything is sent: each names its field with the CONFIG_REALTIME code.
 */
import { describe, expect, it } from 'vitest';
import { validateBenchConfig } from '#server/engine/run/validate.ts';
import { type StallscopeError } from '#shared/errors.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

const realtime = (over: Parameters<typeof testBenchConfig>[1]) =>
  testBenchConfig('http://127.0.0.1:1', { backend: 'openai-realtime-tts', endpoint: '/v1/realtime', ...over });

function refusal(over: Parameters<typeof testBenchConfig>[1]): { code: string; field?: string; message: string } {
  try {
    validateBenchConfig(realtime(over));
  } catch (e) {
    const err = e as StallscopeError;
    return { code: err.code, field: err.field, message: err.message };
  }
  throw new Error('accepted');
}

describe('realtime refusals', () => {
  it('accepts a realtime-tts run of sessions on /v1/realtime', () => {
    expect(() => validateBenchConfig(realtime({ turnsPerSession: 4 }))).not.toThrow();
  });

  it('refuses turns per session below 1, or above 1 without a realtime backend (as vLLM-Omni)', () => {
    expect(refusal({ turnsPerSession: 0 })).toMatchObject({
      code: 'CONFIG_REALTIME',
      field: 'workload.turnsPerSession',
    });
    expect(
      refusal({ backend: 'openai-chat-omni', endpoint: '/v1/chat/completions', turnsPerSession: 2 }),
    ).toMatchObject({ code: 'CONFIG_REALTIME', field: 'workload.turnsPerSession' });
  });

  it('refuses duplex without Seed-TTS input audio, an unknown trigger, and the Seed-TTS gate', () => {
    expect(refusal({ backend: 'openai-realtime-duplex' })).toMatchObject({
      code: 'CONFIG_REALTIME',
      field: 'workload.dataset.name',
    });
    expect(refusal({ extraBody: { realtime_trigger: 'auto' } }).field).toBe('workload.extraBody');
    expect(refusal({ seedTtsEval: { asrModel: 'm' } as never }).field).toBe('accuracy.seedTtsEval');
  });

  it('takes realtime_tts_flow "native" or "turns" for openai-realtime-tts only', () => {
    expect(() => validateBenchConfig(realtime({ extraBody: { realtime_tts_flow: 'turns' } }))).not.toThrow();
    expect(() => validateBenchConfig(realtime({ extraBody: { realtime_tts_flow: 'native' } }))).not.toThrow();
    expect(refusal({ extraBody: { realtime_tts_flow: 'duplex' } })).toMatchObject({
      code: 'CONFIG_REALTIME',
      field: 'workload.extraBody',
    });
    // Duplex has one flow: the key is refused by name (before its missing Seed-TTS dataset).
    expect(refusal({ backend: 'openai-realtime-duplex', extraBody: { realtime_tts_flow: 'turns' } })).toMatchObject({
      field: 'workload.extraBody',
      message: expect.stringContaining('realtime_tts_flow'),
    });
  });

  it('refuses an endpoint that is not a realtime one', () => {
    expect(refusal({ endpoint: '/v1/chat/completions' })).toMatchObject({ field: 'target.endpoint' });
  });
});
