/** The SQLite store behind an app built on it (tests reach its synchronous queries and writer directly). */
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';

export function sqliteOf(store: DashboardStore): SqliteStore {
  if (!(store instanceof SqliteStore)) throw new Error(`expected the SQLite store, got ${store.kind}`);
  return store;
}

/** How many request rows the SQLite store holds for a run, read at once (for synchronous snapshots in tests). */
export function storedRowCount(store: DashboardStore, runId: string): number {
  return sqliteOf(store).db.prepare('SELECT COUNT(*) FROM requests WHERE run_id = ?').pluck().get(runId) as number;
}
