/** The SQLite store behind an app built on it (tests reach its synchronous queries and writer directly). */
import type { DashboardStore } from '#server/dashboard/store/storeApi.ts';
import { Store } from '#server/dashboard/store/store.ts';

export function sqliteOf(store: DashboardStore): Store {
  if (!(store instanceof Store)) throw new Error(`expected the SQLite store, got ${store.kind}`);
  return store;
}
