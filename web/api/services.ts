/** What the UI is handed at start (web/main.tsx): the one store and the one live client. */
import type { RunStore } from '../state/runStore.ts';
import type { LiveClient } from './liveClient.ts';

export interface AppServices {
  store: RunStore;
  live: LiveClient;
}
