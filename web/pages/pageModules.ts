/**
 * The pages split off the entry (App.tsx draws them): one import each, started once, so the entry can start a
 * route's chunk before React asks for it (routePreload.ts) and both share the one module. A page whose chunk has
 * arrived is drawn at once: App.tsx suspends only on a chunk still on its way (docs/performance.md#cold-loads).
 */
export interface PageChunk<M> {
  /**
   * The module: the same promise every time (React's `use` suspends on it while it is on its way). A failed import
   * stays failed, so the page's error boundary shows it (App.tsx): asked again, each draw would start a new import and
   * suspend on it for ever.
   */
  load(): Promise<M>;
  /** The module once its chunk has arrived and run, else undefined. */
  loaded(): M | undefined;
}

function pageChunk<M>(load: () => Promise<M>): PageChunk<M> {
  let started: Promise<M> | undefined;
  let arrived: M | undefined;
  return {
    load() {
      if (!started) {
        started = load();
        started.then(
          (m) => void (arrived = m),
          () => undefined, // reported where it is used
        );
      }
      return started;
    },
    loaded: () => arrived,
  };
}

export const pageModules = {
  run: pageChunk(() => import('./RunPage.tsx')),
  new: pageChunk(() => import('./NewRunPage.tsx')),
  compare: pageChunk(() => import('./ComparePage.tsx')),
  stalls: pageChunk(() => import('./StallsPage.tsx')),
};
