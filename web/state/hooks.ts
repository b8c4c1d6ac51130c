/** React bindings of the store and the live client (React never touches the socket). */
import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import type { LiveClient } from '../api/liveClient.ts';
import type { AppState } from './appReducer.ts';
import type { RunStore } from './runStore.ts';

export interface AppServices {
  store: RunStore;
  live: LiveClient;
}

export const ServicesContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const s = useContext(ServicesContext);
  if (!s) throw new Error('ServicesContext missing');
  return s;
}

/** Subscribe to a slice of the app state; re-renders only when the slice changes identity. */
export function useAppState<T>(select: (s: AppState) => T): T {
  const { store } = useServices();
  return useSyncExternalStore(store.subscribe, () => select(store.getSnapshot()));
}

/** Wall-clock ms, refreshed every `everyMs` while `active` (for counting ages and elapsed time). */
export function useNow(active: boolean, everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [active, everyMs]);
  return now;
}
