/**
 * What a timer can wait (docs/design.md#stop-rules): every duration a run
 * configures in seconds is armed as one `setTimeout` (or `AbortSignal.timeout`),
 * whose delay is a signed 32-bit count of milliseconds. A longer delay does not
 * wait longer: Node fires it after 1 ms with a `TimeoutOverflowWarning`, so the
 * validator refuses it before anything is sent instead of letting it trip at once.
 */

/** The longest delay `setTimeout` honours, in milliseconds (2³¹ − 1). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The same in whole seconds: 2,147,483 s, about 24.8 days. */
export const MAX_TIMER_S = Math.floor(MAX_TIMER_MS / 1000);

/** Why `seconds` cannot be armed as one timer, or null when it can. */
export function timerIssue(seconds: number): string | null {
  if (seconds * 1000 <= MAX_TIMER_MS) return null;
  return `${seconds} s is longer than a timer can wait (at most ${MAX_TIMER_S} s, about 24.8 days)`;
}
