/**
 * The two generations of OpenAI Realtime event names a `/v1/realtime` session
 * speaks (docs/design.md#realtime-dialects). vLLM-Omni's own server emits the
 * beta names (`response.audio.delta`, `response.audio_transcript.delta`, …)
 * and so do OpenAI's beta endpoint and every client written against it, so a
 * session speaks beta by default and whenever the upgrade carried
 * `OpenAI-Beta: realtime=v1`. A client that speaks GA says so: its
 * `session.update` has `session.type: "realtime"` (as the openai SDK's
 * `client.realtime.connect` sends) and its upgrade no beta header; from then
 * on the session uses the GA names. So does a model-native session seeded
 * with `duplex_initial_user_text` (native.ts) without the beta header:
 * vLLM-Omni's newest realtime TTS client (clients/duplex.py's event table) and
 * its own end-to-end test of that route read only the GA names there. The
 * events are built with the GA names (events.ts) and renamed here on the way
 * out.
 */
import type { ServerEvent } from './events.ts';
import { nativeSeed } from './native.ts';

export type Dialect = 'beta' | 'ga';

/** GA name → beta name; a GA event with no beta counterpart maps to null (not sent to a beta client). */
const BETA_NAMES: Record<string, string | null> = {
  'response.output_audio.delta': 'response.audio.delta',
  'response.output_audio.done': 'response.audio.done',
  'response.output_audio_transcript.delta': 'response.audio_transcript.delta',
  'response.output_audio_transcript.done': 'response.audio_transcript.done',
  'response.output_text.delta': 'response.text.delta',
  'response.output_text.done': 'response.text.done',
  'conversation.item.added': 'conversation.item.created',
  // Beta announces an item once (`conversation.item.created`); GA's second announcement has no beta name.
  'conversation.item.done': null,
};

/** Whether an upgrade's headers carry `OpenAI-Beta: realtime=v1` (the session then stays beta). */
export function hasBetaHeader(headers: Record<string, string | string[] | undefined>): boolean {
  const raw = headers['openai-beta'];
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((v) => v.split(','));
  return values.some((v) => v.trim().toLowerCase() === 'realtime=v1');
}

/**
 * A `session.update` moves a session without the beta header to GA when its session says `type: "realtime"`, or
 * seeds the model-native flow (upstream's newest client reads only GA names on it).
 */
export function dialectAfterUpdate(current: Dialect, betaHeader: boolean, session: unknown): Dialect {
  if (betaHeader) return 'beta';
  const type = typeof session === 'object' && session !== null ? (session as { type?: unknown }).type : undefined;
  return type === 'realtime' || nativeSeed(session) !== null ? 'ga' : current;
}

/** The event as `dialect` names it, or null when that dialect has no such event. */
export function inDialect(event: ServerEvent, dialect: Dialect): ServerEvent | null {
  if (dialect === 'ga' || !(event.type in BETA_NAMES)) return event;
  const name = BETA_NAMES[event.type];
  return name === null ? null : { ...event, type: name };
}
