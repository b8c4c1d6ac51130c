/**
 * React bindings of the store and the live client (React never touches the
 * socket). They sit outside web/state so the pure state layer imports
 * nothing of the API layer, which feeds it.
 */
import { createContext, useContext, useMemo, useSyncExternalStore } from 'react';
import type { AppServices } from '../api/services.ts';
import type { AppState } from '../state/appReducer.ts';
import type { RunStore } from '../state/runStore.ts';

export const ServicesContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const s = useContext(ServicesContext);
  if (!s) throw new Error('ServicesContext missing');
  return s;
}

/** React hears about store changes at most this often (the store itself applies every batch at once). */
export const REDRAW_MS = 100;

/** Wrap a store subscription so the listener runs at most once per `ms`, trailing edge. */
export function throttledSubscribe(subscribe: RunStore['subscribe'], ms: number): RunStore['subscribe'] {
  return (listener) => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const unsub = subscribe(() => {
      if (timer) return;
      timer = setTimeout(
        () => {
          timer = null;
          last = Date.now();
          listener();
        },
        Math.max(0, last + ms - Date.now()),
      );
    });
    return () => {
      unsub();
      if (timer) clearTimeout(timer);
    };
  };
}

/** Subscribe to a slice of the app state; re-renders only when the slice changes identity, at most ~10×/s. */
export function useAppState<T>(select: (s: AppState) => T): T {
  const { store } = useServices();
  const subscribe = useMemo(() => throttledSubscribe(store.subscribe, REDRAW_MS), [store]);
  return useSyncExternalStore(subscribe, () => select(store.getSnapshot()));
}
