/** React bindings of the store and the live client (React never touches the socket). */
import { createContext, startTransition, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
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

/** React hears about store changes at most this often (the store itself applies every batch at once). */
export const REDRAW_MS = 100;

/** Wrap a store subscription so the listener runs at most once per `ms`, trailing edge. */
export function throttledSubscribe(subscribe: RunStore['subscribe'], ms: number): RunStore['subscribe'] {
  return (listener) => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const unsub = subscribe(() => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        listener();
      }, Math.max(0, last + ms - Date.now()));
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

/**
 * `value`, but refreshed at most every `ms`, as a transition: costly views of
 * fast-changing data (live charts) then render in slices that yield to urgent
 * updates instead of blocking the page.
 */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    const show = () => {
      last.current = Date.now();
      startTransition(() => setShown(value));
    };
    const wait = last.current + ms - Date.now();
    if (wait <= 0) {
      show();
      return;
    }
    const id = setTimeout(show, wait);
    return () => clearTimeout(id);
  }, [value, ms]);
  return shown;
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
