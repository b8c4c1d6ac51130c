/**
 * Reads started before the page that needs them exists: on a cold load the entry asks for the route's data at once
 * (web/routePreload.ts) instead of after the page's lazily loaded code has arrived and rendered. The page's own call
 * (rest.ts) then takes the reply already on its way. Each primed read is taken once; one not taken within
 * PRIMED_FOR_MS (the page was left, or never asked) is dropped, so a page opened later asks afresh and never shows
 * data from the first load.
 */

/** How long a primed reply stays the answer for its path: longer than a slow chunk's arrival, shorter than a refresh. */
const PRIMED_FOR_MS = 10_000;

const primed = new Map<string, Promise<Response>>();

/** Starts `GET path` now, unless it is already on its way. */
export function prime(path: string): void {
  if (primed.has(path)) return;
  const reply = fetch(path);
  // Read or not, a failed read is reported by the call that takes it (as the same call's own fetch would be).
  reply.catch(() => undefined);
  primed.set(path, reply);
  setTimeout(() => {
    if (primed.get(path) === reply) primed.delete(path);
  }, PRIMED_FOR_MS);
}

/** The primed reply for `path`, once; undefined when none was primed or it was dropped. */
export function takePrimed(path: string): Promise<Response> | undefined {
  const reply = primed.get(path);
  primed.delete(path);
  return reply;
}
