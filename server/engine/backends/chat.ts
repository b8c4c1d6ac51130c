/**
 * `openai-chat-omni` (and `openai-chat`, read the same way): a streamed chat
 * completion with text and audio events (docs/design.md#request, #stream).
 * The body builder and the SSE stream parser are the engine's original
 * ones; this module only names them as a backend (openai-chat-omni's reading
 * adds the stage-0 token-timing fallback, transport/reading/chatStage0.ts).
 */
import { buildRequestBody } from './requestBody.ts';
import { CHAT_OMNI_SSE_READING, SSE_READING } from '../transport/index.ts';
import type { Backend } from './backend.ts';

export const CHAT_OMNI_BACKEND: Backend = {
  name: 'openai-chat-omni',
  buildBody: buildRequestBody,
  reading: () => CHAT_OMNI_SSE_READING,
  warmsWithRecordedChat: true,
};

/**
 * vLLM's own chat client (`async_request_openai_chat_completions`) reads no `metrics` — no stage-0 timing fallback,
 * no stage fields — and has no retry loop: a transport error fails the request at once.
 */
export const CHAT_BACKEND: Backend = {
  ...CHAT_OMNI_BACKEND,
  name: 'openai-chat',
  reading: () => SSE_READING,
  maxAttempts: 1,
};
