/** Builders for `openai-chat-omni` SSE events, as a vLLM-Omni server emits them. */
import { makeWav } from './wav.ts';

const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model: 'test-model' };

export function sse(obj: unknown): string {
  return `data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n\n`;
}

/** The role chunk (adds 0 tokens). */
export function roleEvent(promptTokens = 10): string {
  return sse({
    ...base,
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
    modality: 'text',
  });
}

/** A text delta with cumulative usage. */
export function textEvent(content: string, completionTokens: number, promptTokens = 10): string {
  return sse({
    ...base,
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
    modality: 'text',
  });
}

/** An audio delta whose content is the base64 of a whole WAV file. */
export function audioEvent(samples = 2400, rate = 24000, promptTokens = 10): string {
  return sse({
    ...base,
    choices: [
      { index: 0, delta: { content: makeWav(samples, rate).toString('base64') }, logprobs: null, finish_reason: null },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
    modality: 'audio',
  });
}

export function usageEvent(completionTokens: number, promptTokens = 10): string {
  return sse({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  });
}

export const DONE = 'data: [DONE]\n\n';

/** A complete stream: role, `tokens` text events, `audioChunks` audio events, usage, [DONE]. */
export function fullStream(tokens: number, audioChunks = 0): string[] {
  const out = [roleEvent()];
  for (let i = 1; i <= tokens; i++) out.push(textEvent(`w${i} `, i));
  for (let i = 0; i < audioChunks; i++) out.push(audioEvent());
  out.push(usageEvent(tokens), DONE);
  return out;
}
