/**
 * What one `/v1/realtime` client may hand the reproduction server
 * (docs/design.md#realtime): a message is refused unparsed past
 * REALTIME_MAX_MESSAGE_BYTES (a 200 ms append is ~13 KB, a session.update
 * with a 6 s reference voice ~400 KB; a 15 MB prompt once cost ~640 MB
 * parsed and run through the pipeline), and a session's text — its
 * conversation items and seeded target text, summed over its life — past
 * REALTIME_MAX_SESSION_TEXT_CHARS. Both refusals are `error` events; the
 * session stays open.
 */
export const REALTIME_MAX_MESSAGE_BYTES = 1024 * 1024;
export const REALTIME_MAX_SESSION_TEXT_CHARS = 1024 * 1024;

/** Why a message of `bytes` is refused, or null. */
export function messageTooLarge(bytes: number): string | null {
  return bytes > REALTIME_MAX_MESSAGE_BYTES
    ? `the event is ${bytes} bytes, over the ${REALTIME_MAX_MESSAGE_BYTES}-byte limit of one realtime event`
    : null;
}

/** The text a session has been given so far, against its cap. */
export class SessionTextBudget {
  private used = 0;

  /** Takes `chars` of text; returns why not (nothing taken) when the session's total would pass the cap. */
  take(chars: number): string | null {
    if (this.used + chars > REALTIME_MAX_SESSION_TEXT_CHARS)
      return `the session's text would be ${this.used + chars} characters, over its ${REALTIME_MAX_SESSION_TEXT_CHARS}-character limit`;
    this.used += chars;
    return null;
  }
}
