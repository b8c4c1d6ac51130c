/**
 * The WAL checkpointer is a worker thread with its own connection. A store
 * closed at once and its folder removed (every test's teardown, a dashboard
 * stopped right after start) must not leave that thread to fail on its own
 * and surface as an uncaught error in the process; nor may it outlive the
 * store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';

describe('checkpointer thread', () => {
  it('a store closed at once, its folder removed, leaves no failing or lingering thread', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      for (let i = 0; i < 5; i++) {
        const dir = mkdtempSync(join(tmpdir(), 'stallscope-ckpt-'));
        const store = new SqliteStore({ dataDir: dir });
        store.closeNow();
        rmSync(dir, { recursive: true, force: true });
      }
      await new Promise((r) => setTimeout(r, 1500));
      const workers = process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker');
      expect(uncaught).toEqual([]);
      expect(workers).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  }, 20_000);
});
