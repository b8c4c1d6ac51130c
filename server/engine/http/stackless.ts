/**
 * No stack for the error undici builds when a connection ends normally
 * (docs/design.md#normal-close). A response whose connection closes after it
 * (every request with a connection per request, the default; or a server's
 * `Connection: close`) makes undici destroy the socket with a fresh
 * `InformationalError('reset')` right after the handler's `onComplete`
 * returns, and Node's stream destroy formats that error's stack at once: a
 * stack captured and formatted per request that nobody reads (a tenth of the
 * whole process's CPU per request in a CPU profile of `stallscope bench`).
 *
 * `stacklessUntilMicrotask()`, called from `onComplete`, switches stack
 * capture off until the current run of callbacks ends (the next microtask
 * checkpoint), which covers undici's destroy that follows synchronously. It
 * does nothing when capture is already off (a `withoutStacks` burst owns the
 * limit and restores it itself), and the restore leaves the limit alone if
 * something else changed it meanwhile.
 */
let saved: number | null = null;

function restore(): void {
  if (saved !== null && Error.stackTraceLimit === 0) Error.stackTraceLimit = saved;
  saved = null;
}

export function stacklessUntilMicrotask(): void {
  if (saved !== null || Error.stackTraceLimit === 0) return;
  saved = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  queueMicrotask(restore);
}
