/**
 * A cold load's first paint waits for as little as it can (docs/performance.md#cold-loads): as soon as the entry
 * runs, the route in the address starts its page's chunk and its data together, instead of the data read starting
 * only once the chunk has arrived, run and rendered. The reads go through the same path builders as the pages' own
 * calls, which take them (api/primed.ts).
 */
import { eventsPath, requestsPath, runPath, runsPath, stallsPath } from './api/rest.ts';
import { prime } from './api/primed.ts';
import { pageModules } from './pages/pageModules.ts';
import { TIMELINE_ROWS } from './state/compareTimeline.ts';
import type { Route } from './state/router.ts';
import { listFilter } from './state/runsFilter.ts';
import { stallsFilter } from './state/stallsView.ts';

/** The reads the page for `route` makes first, in the order it makes them. */
function firstReads(route: Route): string[] {
  switch (route.page) {
    case 'runs':
      return [runsPath(listFilter(route))];
    case 'stalls':
      return [stallsPath(stallsFilter(route))];
    case 'run':
      return [runPath(route.id), eventsPath(route.id, 0)];
    case 'compare':
      return [...route.ids.map(runPath), ...route.ids.map((id) => requestsPath(id, 0, TIMELINE_ROWS))];
    case 'new':
    case 'notFound':
      return [];
  }
}

/**
 * Starts the route's chunk and reads; the chunk's arrival (settled either way; at once for the Runs list, which the
 * entry holds). Not when the address carries `?token=`: the session read (api/session.ts) sets the cookie the other
 * reads need, so they wait for the page as before.
 */
export function preloadRoute(route: Route, search: string): Promise<unknown> {
  const chunk =
    route.page !== 'runs' && route.page !== 'notFound'
      ? pageModules[route.page].load().catch(() => undefined)
      : Promise.resolve();
  if (!new URLSearchParams(search).has('token')) for (const path of firstReads(route)) prime(path);
  return chunk;
}
