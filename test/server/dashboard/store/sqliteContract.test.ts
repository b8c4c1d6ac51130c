/** The store contract on the embedded SQLite store (a real file in a temp folder). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { storeContract } from './storeContract.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

storeContract('sqlite', () => ({
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'stallscope-contract-'));
    dirs.push(dir);
    return { store: new SqliteStore({ dataDir: dir }), reopen: async () => new SqliteStore({ dataDir: dir }) };
  },
}));
