/**
 * Validation of a `/v1/audio/speech` body (OpenAI's speech API as
 * vLLM-Omni serves it) into what the pipeline needs: the text is spoken back
 * by the same thinker → talker → Code2Wav pipeline as a chat request's last
 * user message. Any voice name is accepted (the repro has one voice).
 * Formats: `pcm` (raw s16le, 24 kHz mono) and `wav`; streaming (`stream:
 * true`) sends raw PCM chunks as Code2Wav decodes them (`stream_format`
 * `audio`, the default).
 */
import { bad, optInt, servedModelBody, type ChatRequest } from './chatRequest.ts';

export interface SpeechRequest {
  stream: boolean;
  format: 'pcm' | 'wav';
  /** The request as the omni pipeline runs it (text and audio; the text is not sent back). */
  omni: ChatRequest;
}

export function parseSpeechRequest(body: unknown, servedModel: string): SpeechRequest {
  const b = servedModelBody(body, servedModel);
  if (typeof b.input !== 'string' || b.input.trim() === '') throw bad('input must be a non-empty string', 'input');
  if (b.voice !== undefined && b.voice !== null && typeof b.voice !== 'string')
    throw bad('voice must be a string', 'voice');
  if (b.stream !== undefined && typeof b.stream !== 'boolean') throw bad('stream must be a boolean', 'stream');
  const format = b.response_format ?? 'wav';
  if (format !== 'pcm' && format !== 'wav')
    throw bad(`response_format ${JSON.stringify(format)} is not supported here (pcm, wav)`, 'response_format');
  const streamFormat = b.stream_format ?? 'audio';
  if (streamFormat !== 'audio')
    throw bad(`stream_format ${JSON.stringify(streamFormat)} is not supported here (audio)`, 'stream_format');
  const stream = b.stream === true;
  if (stream && format !== 'pcm') throw bad('a streamed answer is raw PCM: ask response_format pcm', 'response_format');
  return {
    stream,
    format,
    omni: {
      model: b.model,
      stream,
      includeUsage: false,
      continuousUsage: false,
      wantText: true,
      wantAudio: true,
      maxTokens: null,
      maxNewTokens: optInt(b, 'max_new_tokens'),
      ignoreEos: b.ignore_eos === true,
      stageMetrics: false,
      userText: b.input,
      promptTokens: Math.max(1, Math.ceil(b.input.length / 4)),
    },
  };
}
