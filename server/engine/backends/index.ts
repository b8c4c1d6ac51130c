/**
 * The backend registry: one engine module per name of shared/config/backends.ts.
 * A new backend adds its module here and its entry there
 * (docs/design.md#backends).
 */
import { type BackendName } from '../../../shared/config/backends.ts';
import type { Backend } from './backend.ts';
import { CHAT_BACKEND, CHAT_OMNI_BACKEND } from './chat.ts';
import { SPEECH_BACKEND } from './speech.ts';
import { REALTIME_DUPLEX_BACKEND, REALTIME_TTS_BACKEND } from './realtime.ts';

const REGISTRY: Record<BackendName, Backend> = {
  'openai-chat-omni': CHAT_OMNI_BACKEND,
  'openai-chat': CHAT_BACKEND,
  'openai-audio-speech': SPEECH_BACKEND,
  'openai-realtime-tts': REALTIME_TTS_BACKEND,
  'openai-realtime-duplex': REALTIME_DUPLEX_BACKEND,
};

/** The engine module of a backend the config validated (validate.ts refuses any other name). */
export function backendOf(name: string): Backend {
  const backend = (REGISTRY as Record<string, Backend | undefined>)[name];
  if (!backend) throw new Error(`no engine module for backend '${name}'`);
  return backend;
}

export type { Backend } from './backend.ts';

export { runRequestBudget } from './requestBudget.ts';
