/**
 * Builders for the `/v1/realtime` server events (docs/design.md#realtime),
 * built with the OpenAI Realtime GA names (`response.output_audio.delta` with
 * base64 PCM16 in `delta`, `response.output_audio_transcript.delta`,
 * `response.done` with `response.status`, `error` with
 * `error.message`/`error.code`) and renamed for a beta client on the way out
 * (dialect.ts). Every event
 * gets an `event_id`; audio deltas also say their sample rate, as vLLM-Omni's
 * server does.
 */
import { randomUUID } from 'node:crypto';

export type ServerEvent = Record<string, unknown> & { type: string };

export const newId = (prefix: string): string => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 20)}`;

export function serverEvent(type: string, fields: Record<string, unknown> = {}): ServerEvent {
  return { type, event_id: newId('event'), ...fields };
}

export interface SessionShape {
  id: string;
  model: string;
  outputModalities: string[];
  instructions: string;
  turnDetection: VadSettings | null;
  /** Output audio rate (Code2Wav's). */
  sampleRateHz: number;
  /** Input audio rate the client declared (VAD frames). */
  inputRateHz: number;
}

export interface VadSettings {
  type: 'server_vad';
  threshold: number;
  prefixPaddingMs: number;
  silenceDurationMs: number;
  createResponse: boolean;
}

/** The session object in the dialect's shape (dialect.ts): GA nests the audio settings, beta keeps them flat. */
export function sessionObject(s: SessionShape, dialect: 'beta' | 'ga' = 'ga'): Record<string, unknown> {
  if (dialect === 'beta') return betaSessionObject(s);
  const format = { type: 'audio/pcm', rate: s.sampleRateHz };
  return {
    type: 'realtime',
    object: 'realtime.session',
    id: s.id,
    session_id: s.id,
    model: s.model,
    output_modalities: s.outputModalities,
    instructions: s.instructions,
    audio: {
      input: {
        format,
        turn_detection: s.turnDetection
          ? {
              type: 'server_vad',
              threshold: s.turnDetection.threshold,
              prefix_padding_ms: s.turnDetection.prefixPaddingMs,
              silence_duration_ms: s.turnDetection.silenceDurationMs,
              create_response: s.turnDetection.createResponse,
            }
          : null,
      },
      output: { format, voice: 'alloy' },
    },
  };
}

function betaSessionObject(s: SessionShape): Record<string, unknown> {
  const td = s.turnDetection;
  return {
    object: 'realtime.session',
    id: s.id,
    session_id: s.id,
    model: s.model,
    modalities: s.outputModalities,
    instructions: s.instructions,
    voice: 'alloy',
    input_audio_format: 'pcm16',
    output_audio_format: 'pcm16',
    sample_rate_hz: s.inputRateHz,
    turn_detection: td
      ? {
          type: 'server_vad',
          threshold: td.threshold,
          prefix_padding_ms: td.prefixPaddingMs,
          silence_duration_ms: td.silenceDurationMs,
          create_response: td.createResponse,
        }
      : null,
  };
}

export function responseObject(
  id: string,
  status: 'in_progress' | 'completed' | 'failed' | 'cancelled',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { object: 'realtime.response', id, status, output: [], ...extra };
}

export function errorEvent(message: string, code: string, type = 'invalid_request_error', eventId?: string) {
  return serverEvent('error', {
    error: { type, code, message, param: null, ...(eventId ? { event_id: eventId } : {}) },
  });
}

/** The PCM16 samples of a complete mono WAV window (Code2Wav's output), as base64. */
export function wavPcmBase64(wav: Uint8Array): string {
  return Buffer.from(wav.buffer, wav.byteOffset + 44, wav.byteLength - 44).toString('base64');
}
