/**
 * Reads started before the page that needs them exists: on a cold load the entry asks for the route's data at once
 * (web/routePreload.ts) instead of after the page's lazily loaded code has arrived and rendered. The page's own call
 * (rest.ts) then takes the reply already on its way. Each primed read is taken once; one not taken within
 * PRIMED_FOR_MS is dropped and asked again, so a page opened later never shows data from its first load.
 */

/** How long a primed reply stays the answer for its path: longer than a slow chunk's arrival, shorter than a refresh. */
const PRIMED_FOR_MS = 10_000;

const primed = new Map<string, { at: number; reply: Promise<Response> }>();

/** Starts `GET path` now, unless it is already on its way. */
export function prime(path: string): void {
  if (primed.has(path)) return;
  const reply = fetch(path);
  // Read or not, a failed read is reported by the call that takes it (as the same call's own fetch would be).
  reply.catch(() => undefined);
  primed.set(path, { at: performance.now(), reply });
}

/** The primed reply for `path`, once, while it is fresh; undefined when none was primed. */
export function takePrimed(path: string): Promise<Response> | undefined {
  const p = primed.get(path);
  if (!p) return undefined;
  primed.delete(path);
  return performance.now() - p.at <= PRIMED_FOR_MS ? p.reply : undefined;
}
