/**
 * `openai-chat-omni` (and `openai-chat`, read the same way): a streamed chat
 * completion with text and audio events (docs/design.md#request, #stream).
 * The body builder and the SSE stream parser are the engine's original
 * ones; this module only names them as a backend.
 */
import { buildRequestBody } from './requestBody.ts';
import { SSE_READING } from '../transport/index.ts';
import type { Backend } from './backend.ts';

export const CHAT_OMNI_BACKEND: Backend = {
  name: 'openai-chat-omni',
  buildBody: buildRequestBody,
  reading: () => SSE_READING,
  warmsWithRecordedChat: true,
};

export const CHAT_BACKEND: Backend = { ...CHAT_OMNI_BACKEND, name: 'openai-chat' };
