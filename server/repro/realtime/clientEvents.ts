/**
 * Reading the client events of a `/v1/realtime` session that carry settings
 * or content: `session.update` in both shapes in use (the OpenAI Realtime
 * shape, `output_modalities` and `audio.input.turn_detection`, which the
 * official `openai` client sends, and vLLM-Omni's duplex shape, top-level
 * `modalities`, `turn_detection` and `sample_rate_hz`), and the user text of
 * a `conversation.item.create`.
 */
import type { SessionShape, VadSettings } from './events.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Applies a `session.update`'s session object; returns what is wrong with it, or null. */
export function applySessionUpdate(shape: SessionShape, session: unknown): string | null {
  if (session === undefined) return null;
  if (!isObj(session)) return 'session must be an object';
  const modalities = session.output_modalities ?? session.modalities;
  if (modalities !== undefined) {
    if (!Array.isArray(modalities) || !modalities.every((m) => m === 'text' || m === 'audio'))
      return "output_modalities must be an array of 'text' and 'audio'";
    shape.outputModalities = modalities.length === 0 ? ['audio'] : (modalities as string[]);
  }
  if (typeof session.instructions === 'string') shape.instructions = session.instructions;
  const audio = isObj(session.audio) ? session.audio : {};
  const input = isObj(audio.input) ? audio.input : {};
  const rate = rateOf(session.sample_rate_hz) ?? rateOf(input.sample_rate_hz) ?? rateOf(formatRate(input.format));
  if (rate !== undefined) {
    if (!Number.isInteger(rate) || rate < 8000 || rate > 48000) return `input sample rate ${rate} Hz is out of range`;
    shape.inputRateHz = rate;
  }
  const td = 'turn_detection' in input ? input.turn_detection : session.turn_detection;
  if (td === null) shape.turnDetection = null;
  else if (td !== undefined) {
    const vad = vadSettings(td);
    if (typeof vad === 'string') return vad;
    shape.turnDetection = vad;
  }
  return null;
}

function rateOf(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function formatRate(format: unknown): unknown {
  return isObj(format) ? format.rate : undefined;
}

function vadSettings(td: unknown): VadSettings | string {
  if (!isObj(td) || td.type !== 'server_vad') return "turn_detection must be null or {type: 'server_vad', ...}";
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  return {
    type: 'server_vad',
    threshold: num(td.threshold, 0.5),
    prefixPaddingMs: num(td.prefix_padding_ms, 300),
    silenceDurationMs: Math.max(20, num(td.silence_duration_ms, 500)),
    createResponse: td.create_response !== false,
  };
}

/**
 * The user text of a `conversation.item.create` item: a string (possibly
 * empty) for a user message, undefined for another role's message (kept in
 * the conversation, not spoken back), null when the item is not a message.
 */
export function userItemText(item: unknown): string | null | undefined {
  if (!isObj(item) || item.type !== 'message' || !Array.isArray(item.content)) return null;
  if (item.role !== 'user') return undefined;
  return item.content
    .map((p) =>
      isObj(p) && (p.type === 'input_text' || p.type === 'text') && typeof p.text === 'string' ? p.text : '',
    )
    .filter((t) => t !== '')
    .join(' ');
}
