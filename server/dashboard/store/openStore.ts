/**
 * Opens the dashboard's store: PostgreSQL when a database URL is given
 * (docs/design.md#team-dashboard), else the embedded SQLite in the data
 * folder (or in memory). Migrations run as it opens, on either.
 */
import { SqliteStore } from './sqlite/sqliteStore.ts';
import type { DashboardStore } from './common/storeApi.ts';

export interface OpenStoreOptions {
  /** null → in memory (tests). */
  dataDir: string | null;
  /** postgres://… or postgresql://…; null → SQLite. */
  database: string | null;
  flushIntervalMs?: number;
  maxBatch?: number;
  /** Events the outage buffer holds while PostgreSQL is away. */
  bufferEvents?: number;
}

export async function openStore(o: OpenStoreOptions): Promise<DashboardStore> {
  if (o.database) {
    // Loaded only when asked for: the embedded default never loads the pg client.
    const { openPgStore } = await import('./pg/pgStore.ts');
    return openPgStore({
      url: o.database,
      flushIntervalMs: o.flushIntervalMs,
      maxBatch: o.maxBatch,
      bufferEvents: o.bufferEvents,
    });
  }
  return new SqliteStore({ dataDir: o.dataDir, flushIntervalMs: o.flushIntervalMs, maxBatch: o.maxBatch });
}
