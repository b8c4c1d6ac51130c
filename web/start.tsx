/** The app the entry (main.tsx) loads beside the route's first reads: one store, one live client, then React. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createLiveClient, defaultLiveUrl } from './api/liveClient.ts';
import { App } from './App.tsx';
import { ServicesContext } from './hooks/services.ts';
import { createRunStore } from './state/runStore.ts';

/** Connects the live client at once and draws the app into `root` once `drawWhen` settles. */
export function startApp(root: HTMLElement, drawWhen: Promise<unknown>): void {
  const store = createRunStore();
  const live = createLiveClient({ url: defaultLiveUrl(window.location), store });
  live.start();
  void drawWhen.then(() =>
    createRoot(root).render(
      <StrictMode>
        <ServicesContext.Provider value={{ store, live }}>
          <App />
        </ServicesContext.Provider>
      </StrictMode>,
    ),
  );
}
