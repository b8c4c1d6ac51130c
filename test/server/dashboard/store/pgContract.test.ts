/** The store contract on PostgreSQL: a throwaway PostgreSQL 15 cluster, a fresh database per test. */
import { afterAll, beforeAll } from 'vitest';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { storeContract } from './storeContract.ts';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

storeContract('postgres', () => ({
  async fresh() {
    const url = await cluster.freshDatabase();
    return { store: await openPgStore({ url }), reopen: () => openPgStore({ url }) };
  },
}));
