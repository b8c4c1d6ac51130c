/** Entry: one store, one live client, then React. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createLiveClient, defaultLiveUrl } from './api/liveClient.ts';
import { App } from './App.tsx';
import { loadSession } from './api/session.ts';
import { ServicesContext } from './hooks/services.ts';
import { preloadRoute } from './routePreload.ts';
import { parseRoute } from './state/router.ts';
import { createRunStore } from './state/runStore.ts';
import './styles/app.css';

/**
 * The longest the first draw waits for the route's chunk: long enough for a chunk fetched beside the entry on a loaded
 * machine, short enough that a chunk that never comes still gets the shell and its "Loading" drawn.
 */
const FIRST_DRAW_WAITS_MS = 2_000;

// First: the route's chunk and data, so neither waits for the other or for React's first render.
const chunk = preloadRoute(parseRoute(window.location.hash), window.location.search);

const store = createRunStore();
const live = createLiveClient({ url: defaultLiveUrl(window.location), store });
live.start();
void loadSession(window.location, window.history);

// Drawn once the route's chunk has arrived: the page is drawn with its content, not a fallback React then holds for
// 300 ms (App.tsx).
void Promise.race([chunk, new Promise((r) => setTimeout(r, FIRST_DRAW_WAITS_MS))]).then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <ServicesContext.Provider value={{ store, live }}>
        <App />
      </ServicesContext.Provider>
    </StrictMode>,
  ),
);
