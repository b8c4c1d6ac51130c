/**
 * vLLM-Omni's model-native duplex text-to-speech (docs/design.md#realtime):
 * the client seeds the session with its target text in
 * `session.extra_body.duplex_initial_user_text`, with `auto_response: true`
 * (the model, not the client, decides when to answer), then streams audio
 * units — silence — until the answer's `response.done`. A text-only
 * `response.create` is no part of this flow. The seed is read here; the
 * session (session.ts) answers it at the first appended audio.
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The seeded target text of a `session.update`'s session, or null when it seeds nothing the model answers by itself. */
export function nativeSeed(session: unknown): string | null {
  if (!isObj(session) || !isObj(session.extra_body)) return null;
  const extra = session.extra_body;
  const text = extra.duplex_initial_user_text;
  return typeof text === 'string' && extra.auto_response === true ? text : null;
}
