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

// First: the route's chunk and data, so neither waits for the other or for React's first render.
preloadRoute(parseRoute(window.location.hash), window.location.search);

const store = createRunStore();
const live = createLiveClient({ url: defaultLiveUrl(window.location), store });
live.start();
void loadSession(window.location, window.history);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ServicesContext.Provider value={{ store, live }}>
      <App />
    </ServicesContext.Provider>
  </StrictMode>,
);
