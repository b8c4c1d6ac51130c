/**
 * The target end to end over HTTP: the vLLM-Omni stream format parsed by the
 * benchmark engine's own parser, non-streaming responses, error bodies,
 * /v1/models, and that the watchdog changes no output byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import type { TelemetryEvent } from '#shared/protocol/telemetry.ts';
import { MODEL, sha } from '#test/helpers/code2wav.ts';
import { audioPayloads, chatBody, post, streamThroughParser } from '#test/helpers/reproChat.ts';

let server: Awaited<ReturnType<typeof startReproServer>>;
const telemetry: TelemetryEvent[] = [];
beforeAll(async () => {
  server = await startReproServer({
    tokenRate: 1000,
    seed: 11,
    watchdogTimeoutS: 5,
    onTelemetry: (e) => telemetry.push(e),
  });
});
afterAll(async () => {
  await server?.close();
});

describe('repro server: streaming format', () => {
  it('streams text, audio, usage and metrics that the engine parses into sane numbers', async () => {
    const { record, events } = await streamThroughParser(
      server.url,
      chatBody({ max_tokens: 12, ignore_eos: true, return_stage_metrics: true }),
      'run1-0',
    );
    expect(record.success).toBe(true);
    expect(record.warnings).toEqual([]);
    expect(record.outputTokens).toBe(12);
    expect(record.generatedText.split(' ')).toHaveLength(12);
    expect(record.ttft).toBeGreaterThan(0);
    expect(record.itl).toHaveLength(11);
    // 12 tokens × 5 codes = 60 codes at 25 Hz: exactly 2.4 s of audio.
    expect(record.audioDuration).toBeCloseTo(2.4, 9);
    expect(record.audioTtfp).toBeGreaterThan(0);
    expect(record.latency).toBeGreaterThanOrEqual(record.audioTtfp);
    // What the result's request_stage_metrics keeps of the engine's stage metrics.
    expect(record.stageSnapshot).toEqual({
      '0': { num_tokens_out: 12, finish_reason: 'length' },
      '2': { audio_frames: 57600, audio_duration_s: 2.4 },
    });
    // Shape: role chunk first, modality on every content event, usage-only event last.
    expect(events[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(events[0].usage.completion_tokens).toBe(0);
    const content = events.slice(0, -1);
    expect(content.every((e) => e.modality === 'text' || e.modality === 'audio')).toBe(true);
    expect(audioPayloads(events)).toHaveLength(3); // windows of 25 + 25 + 10 codes
    expect(
      content.filter((e) => e.choices[0].finish_reason !== null).map((e) => [e.modality, e.choices[0].finish_reason]),
    ).toEqual([['audio', 'stop']]);
    const last = events.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.modality).toBeUndefined();
    expect(last.usage.completion_tokens).toBe(12);
    // Telemetry for the ops carries the client's x-request-id.
    const ops = telemetry.filter((e) => e.type === 'c2w.op.begin' && e.requestIds.includes('run1-0'));
    expect(ops).toHaveLength(3);
  });

  it('caps the audio with max_new_tokens and honours text-only modalities', async () => {
    const capped = await streamThroughParser(
      server.url,
      chatBody({ max_tokens: 12, ignore_eos: true, max_new_tokens: 30 }),
      'run1-1',
    );
    expect(capped.record.audioDuration).toBeCloseTo(1.2, 9);
    const textOnly = await streamThroughParser(server.url, chatBody({ max_tokens: 5, modalities: ['text'] }), 'run1-2');
    expect(textOnly.record.hasAudio).toBe(false);
    expect(textOnly.record.outputTokens).toBe(5);
    expect(audioPayloads(textOnly.events)).toEqual([]);
    expect(textOnly.events.at(-2).choices[0].finish_reason).toBe('length');
  });

  it('answers non-streaming requests with message.audio.data', async () => {
    const res = await post(server.url, chatBody({ stream: false, max_tokens: 10, ignore_eos: true }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.object).toBe('chat.completion');
    expect(body.usage.completion_tokens).toBe(10);
    const wav = Buffer.from(body.choices[0].message.audio.data, 'base64');
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    expect((wav.length - 44) / 2 / 24000).toBeCloseTo(2.0, 9);
    expect(body.choices[0].message.audio.transcript).toBe(body.choices[0].message.content);
  });

  it.each([
    ['invalid JSON', '{"model":', 400],
    ['no messages', { model: MODEL, messages: [] }, 400],
    ['a bad role', { model: MODEL, messages: [{ role: 'robot', content: 'x' }] }, 400],
    ['bad modalities', { model: MODEL, messages: [{ role: 'user', content: 'x' }], modalities: ['video'] }, 400],
    ['a negative max_tokens', { model: MODEL, messages: [{ role: 'user', content: 'x' }], max_tokens: -3 }, 400],
    ['a non-boolean stream', { model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, 400],
    ['an unknown model', { model: 'other/model', messages: [{ role: 'user', content: 'x' }] }, 404],
  ])('rejects %s with an OpenAI-style error', async (_name, body, status) => {
    const res = await post(server.url, body);
    expect(res.status).toBe(status);
    const err = (await res.json()).error;
    expect(err).toMatchObject({ code: status, type: status === 404 ? 'NotFoundError' : 'BadRequestError' });
    expect(typeof err.message).toBe('string');
  });

  it('lists the served model', async () => {
    const body = await (await fetch(`${server.url}/v1/models`)).json();
    expect(body).toMatchObject({ object: 'list', data: [{ id: MODEL, object: 'model' }] });
  });
});

describe('repro server: the watchdog changes no output byte', () => {
  it('gives identical audio with the watchdog on and off', async () => {
    const off = await startReproServer({ tokenRate: 1000, seed: 11, watchdogTimeoutS: 0 });
    try {
      const body = chatBody({ max_tokens: 8, ignore_eos: true });
      const a = audioPayloads((await streamThroughParser(server.url, body, 'on-0')).events);
      const b = audioPayloads((await streamThroughParser(off.url, body, 'off-0')).events);
      expect(a.length).toBe(2);
      expect(a.map((x) => sha(Buffer.from(x, 'base64')))).toEqual(b.map((x) => sha(Buffer.from(x, 'base64'))));
    } finally {
      await off.close();
    }
  });
});
