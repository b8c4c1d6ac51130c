/** React bindings of the store and the live client (React never touches the socket). */
import {
  createContext,
  startTransition,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
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

/**
 * `value`, but refreshed at most every `ms`, as a transition: costly views of
 * fast-changing data (live charts) then render in slices that yield to urgent
 * updates instead of blocking the page.
 */
export function useThrottled<T>(value: T, ms: number, paused = false): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (paused) return; // e.g. off screen: catch up when it matters again
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
  }, [value, ms, paused]);
  return shown;
}

/** Wall-clock ms, refreshed every `everyMs` while `active` (for counting ages and elapsed time). */
export function useNow(active: boolean, everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    // The first tick at once (not after everyMs), from a timer rather than
    // synchronously in the effect, so the effect itself never sets state.
    const first = setTimeout(() => setNow(Date.now()), 0);
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => {
      clearTimeout(first);
      clearInterval(id);
    };
  }, [active, everyMs]);
  return now;
}

/** Whether an element is on screen (with a margin), so off-screen live views can skip their redraws. */
export function useInView(ref: React.RefObject<Element | null>, margin = '0px'): boolean {
  const [inView, setInView] = useState(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setInView(entries.some((e) => e.isIntersecting)), {
      rootMargin: margin,
    });
    io.observe(el);
    return () => io.disconnect();
  }, [ref, margin]);
  return inView;
}
