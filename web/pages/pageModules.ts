/**
 * The pages split off the entry (App.tsx loads them lazily): one import each, so the entry can start a route's
 * chunk before React asks for it (routePreload.ts) and both share the one module.
 */
export const pageModules = {
  run: () => import('./RunPage.tsx'),
  new: () => import('./NewRunPage.tsx'),
  compare: () => import('./ComparePage.tsx'),
  stalls: () => import('./StallsPage.tsx'),
};
