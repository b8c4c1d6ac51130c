/**
 * The rule that picks a realtime session's event names
 * (docs/design.md#realtime-dialects): beta by default and under
 * `OpenAI-Beta: realtime=v1`, GA once a client without that header sends
 * `session.type: "realtime"` or seeds the model-native flow.
 */
import { describe, expect, it } from 'vitest';
import { dialectAfterUpdate, hasBetaHeader, inDialect } from '#server/repro/realtime/dialect.ts';

describe('realtime dialects', () => {
  it('reads the beta header among other OpenAI-Beta values', () => {
    expect(hasBetaHeader({ 'openai-beta': 'realtime=v1' })).toBe(true);
    expect(hasBetaHeader({ 'openai-beta': 'assistants=v2, realtime=v1' })).toBe(true);
    expect(hasBetaHeader({ 'openai-beta': ['x=1', 'REALTIME=V1'] })).toBe(true);
    expect(hasBetaHeader({})).toBe(false);
    expect(hasBetaHeader({ 'openai-beta': 'realtime=v2' })).toBe(false);
  });

  it('moves to GA only on session.type "realtime" without the beta header', () => {
    expect(dialectAfterUpdate('beta', false, { type: 'realtime' })).toBe('ga');
    expect(dialectAfterUpdate('beta', true, { type: 'realtime' })).toBe('beta');
    expect(dialectAfterUpdate('beta', false, { modalities: ['audio'] })).toBe('beta');
    expect(dialectAfterUpdate('ga', false, { instructions: 'x' })).toBe('ga');
    expect(dialectAfterUpdate('beta', false, { type: 'transcription' })).toBe('beta');
  });

  it('moves a model-native seeded session to GA, unless the upgrade said beta', () => {
    const native = { extra_body: { auto_response: true, duplex_initial_user_text: 'hello' } };
    expect(dialectAfterUpdate('beta', false, native)).toBe('ga');
    expect(dialectAfterUpdate('beta', true, native)).toBe('beta');
    // Not the native flow: no seed, or the client (not the model) decides when to answer.
    expect(dialectAfterUpdate('beta', false, { extra_body: { auto_response: true } })).toBe('beta');
    expect(
      dialectAfterUpdate('beta', false, { extra_body: { auto_response: false, duplex_initial_user_text: 'x' } }),
    ).toBe('beta');
  });

  it('renames the GA events for a beta client and leaves the rest', () => {
    const ev = (type: string) => ({ type, event_id: 'e', delta: 'd' });
    expect(inDialect(ev('response.output_audio.delta'), 'beta')?.type).toBe('response.audio.delta');
    expect(inDialect(ev('response.output_audio_transcript.delta'), 'beta')?.type).toBe(
      'response.audio_transcript.delta',
    );
    expect(inDialect(ev('response.output_audio_transcript.done'), 'beta')?.type).toBe('response.audio_transcript.done');
    expect(inDialect(ev('response.output_audio.done'), 'beta')?.type).toBe('response.audio.done');
    expect(inDialect(ev('response.output_text.delta'), 'beta')?.type).toBe('response.text.delta');
    expect(inDialect(ev('conversation.item.added'), 'beta')?.type).toBe('conversation.item.created');
    expect(inDialect(ev('conversation.item.done'), 'beta')).toBeNull();
    expect(inDialect(ev('response.done'), 'beta')?.type).toBe('response.done');
    expect(inDialect(ev('response.output_audio.delta'), 'ga')?.type).toBe('response.output_audio.delta');
  });
});
