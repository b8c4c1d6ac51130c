/**
 * The benchmark backends stallscope speaks, as vLLM-Omni's `--backend` names
 * them (docs/design.md#backends): what the CLI, the RunSpec schema, the web
 * form and the engine's backend registry (server/engine/backends/) share.
 * One entry per backend; the engine module of the same name says how it
 * sends a request and reads the answer.
 */

export const BACKENDS = [
  'openai-chat-omni',
  'openai-chat',
  'openai-audio-speech',
  'openai-realtime-tts',
  'openai-realtime-duplex',
] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface BackendInfo {
  /** The endpoint used when none is given. */
  defaultEndpoint: string;
  /**
   * The path suffix vLLM-Omni's client requires of the URL (`_validate_api_url`), as a pattern over the
   * URL's path; `/start_profile`-style paths (`profile`) are allowed as for chat.
   */
  endpointPattern: RegExp;
  /** What the endpoint must end with, in words. */
  endpointWords: string;
  /** One line for the form and the README's backend table. */
  summary: string;
}

export const BACKEND_INFO: Record<BackendName, BackendInfo> = {
  'openai-chat-omni': {
    defaultEndpoint: '/v1/chat/completions',
    endpointPattern: /chat\/completions$|profile$/,
    endpointWords: 'chat/completions',
    summary: 'Streamed chat completions with text and audio events (SSE)',
  },
  'openai-chat': {
    defaultEndpoint: '/v1/chat/completions',
    endpointPattern: /chat\/completions$|profile$/,
    endpointWords: 'chat/completions',
    summary: 'Streamed chat completions (SSE), read as openai-chat-omni reads them',
  },
  'openai-audio-speech': {
    defaultEndpoint: '/v1/audio/speech',
    endpointPattern: /audio\/speech$|profile$/,
    endpointWords: 'audio/speech',
    summary: 'Streamed speech: raw PCM over chunked HTTP',
  },
  'openai-realtime-tts': {
    defaultEndpoint: '/v1/realtime',
    endpointPattern: /realtime$|profile$/,
    endpointWords: 'realtime',
    summary: 'Realtime sessions over WebSocket: each prompt a text turn, PCM16 audio deltas back',
  },
  'openai-realtime-duplex': {
    defaultEndpoint: '/v1/realtime',
    endpointPattern: /realtime$|profile$/,
    endpointWords: 'realtime',
    summary: "Realtime sessions over WebSocket: each turn speaks the Seed-TTS prompt's audio at real time",
  },
};

/** The backends that speak a WebSocket session (docs/design.md#realtime): turns grouped into sessions. */
export function isRealtimeBackend(name: string): boolean {
  return name === 'openai-realtime-tts' || name === 'openai-realtime-duplex';
}

export function isBackendName(name: string): name is BackendName {
  return (BACKENDS as readonly string[]).includes(name);
}

/**
 * Why `endpoint` (its URL path `pathname`) cannot serve `backend`, or null: the refusal vLLM-Omni's client
 * makes before sending.
 */
export function endpointIssue(backend: BackendName, endpoint: string, pathname: string): string | null {
  const info = BACKEND_INFO[backend];
  return info.endpointPattern.test(pathname) ? null : `'${endpoint}' must end with ${info.endpointWords}`;
}
