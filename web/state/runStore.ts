/**
 * The store outside React: holds `AppState`, applies actions through the
 * pure reducer, and tells subscribers. React reads it with
 * `useSyncExternalStore(store.subscribe, store.getSnapshot)`; the live client
 * and the REST loaders only ever `dispatch`.
 */
import { initialState, reduce, type AppAction, type AppState } from './appReducer.ts';

/** Functions, not methods: React and the live client pass them around unbound. */
export interface RunStore {
  getSnapshot: () => AppState;
  subscribe: (listener: () => void) => () => void;
  dispatch: (action: AppAction) => void;
}

export function createRunStore(start: AppState = initialState): RunStore {
  let state = start;
  const listeners = new Set<() => void>();
  return {
    getSnapshot: () => state,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispatch: (action) => {
      const next = reduce(state, action);
      if (next === state) return;
      state = next;
      for (const l of [...listeners]) l();
    },
  };
}

export type { AppState, AppAction } from './appReducer.ts';
