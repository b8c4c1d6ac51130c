/** The route in the address, drawn again when it changes (web/state/router.ts holds the routes themselves, pure). */
import { useSyncExternalStore } from 'react';
import { NAVIGATED, parseRoute, type Route } from '../state/router.ts';

const subscribe = (cb: () => void) => {
  window.addEventListener('hashchange', cb);
  window.addEventListener(NAVIGATED, cb);
  return () => {
    window.removeEventListener('hashchange', cb);
    window.removeEventListener(NAVIGATED, cb);
  };
};

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseRoute(hash);
}
