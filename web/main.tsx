/**
 * Entry: the first script a page runs, kept small (docs/performance.md#cold-loads). It starts the route's data, its
 * page's chunk and the session read, then the app (React, the shell and the live client: start.tsx) beside them, so
 * no read waits for React to be fetched, compiled and run.
 */
import { loadSession } from './api/session.ts';
import { preloadRoute } from './routePreload.ts';
import { parseRoute } from './state/router.ts';
import './styles/app.css';

/**
 * The longest the first draw waits for the route's chunk: long enough for a chunk fetched beside the app on a loaded
 * machine, short enough that a chunk that never comes still gets the shell and its "Loading" drawn.
 */
const FIRST_DRAW_WAITS_MS = 2_000;

const chunk = preloadRoute(parseRoute(window.location.hash), window.location.search);
void loadSession(window.location, window.history);

const root = document.getElementById('root')!;
// Drawn once the route's chunk has arrived: the page is drawn with its content, not a fallback React then holds for
// 300 ms (App.tsx).
let waited: ReturnType<typeof setTimeout> | undefined;
const drawWhen = Promise.race([chunk, new Promise((r) => (waited = setTimeout(r, FIRST_DRAW_WAITS_MS)))]).finally(() =>
  clearTimeout(waited),
);
import('./start.tsx').then(
  ({ startApp }) => startApp(root, drawWhen),
  () => {
    // Nothing of the app could be drawn: say so instead of a blank page.
    root.textContent = 'The dashboard’s script could not be loaded. Reload the page to try again.';
  },
);
