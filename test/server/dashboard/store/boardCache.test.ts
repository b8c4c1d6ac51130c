/**
 * The board a dashboard serves again while nothing it reads has changed (server/dashboard/store/common/boardCache.ts,
 * docs/design.md#board-cache), on every store the board runs on: the database's board version moves with each
 * write the board reads — a run added, its stall evidence, its verdict, its deletion — and not with a batch of
 * request events; while it stands, the board served is the one kept (shown by putting the version back after a
 * change: the old board comes back), and once it moves the board served is the database's fresh one, equal to an
 * uncached read. On PostgreSQL two stores on one database stand for two dashboard processes: a change one writes
 * is what the other serves next.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#server/dashboard/app.ts';
import { openStore } from '#server/dashboard/store/openStore.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { SqliteBoard } from '#server/dashboard/store/sqlite/sqliteRuns.ts';
import type { ReaderThread } from '#server/dashboard/store/sqlite/readerThread.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import type { BoardFilter } from '#server/dashboard/store/common/records.ts';
import { BoardCache, boardVersion } from '#server/dashboard/store/common/boardCache.ts';
import { stallsReply } from '#shared/stalls/stallsApi.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { generateHistory, type GeneratedRun } from '#test/perf/boardHistory.ts';

const FILTER: BoardFilter = { maxRuns: 5000 };
const PICK = { limit: 100 };

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

/** 40 runs, a third of them stalled; the last few are written during the tests. */
const history = (): GeneratedRun[] => [
  ...generateHistory({ seed: 7, runs: 40, pipelines: 2, nodes: 3, fingerprints: 3, stalledShare: 0.35 }),
];

async function write(store: DashboardStore, g: GeneratedRun): Promise<void> {
  await store.runWrites.insertWhole(g.run, g.update);
  await store.admin.writeEvents(g.run.id, g.events);
  if (g.stalls.length) await store.admin.writeStallRows(g.run.id, g.stalls);
}

const fresh = async (store: DashboardStore) => JSON.stringify(stallsReply(await store.board.view(FILTER, 20, PICK)));
const served = (store: DashboardStore) => store.board.viewJson(FILTER, 20, PICK);
const version = (store: DashboardStore) => boardVersion(store.kysely);

for (const kind of ['SQLite (reader thread)', 'SQLite (in memory)', 'PostgreSQL'] as const)
  describe(`the board kept between changes on ${kind}`, () => {
    let store: DashboardStore;
    let dir: string | null = null;
    let database: string | null = null;
    const runs = history();
    const stalled = runs.filter((g) => g.stalls.length > 0);
    beforeAll(async () => {
      if (kind === 'SQLite (reader thread)') dir = mkdtempSync(join(tmpdir(), 'stallscope-board-cache-'));
      if (kind === 'PostgreSQL') database = await cluster!.freshDatabase();
      store = await openStore({ dataDir: dir, database });
      // All but the last stalled run: that one arrives during the tests.
      for (const g of runs) if (g !== stalled.at(-1)) await write(store, g);
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('serves the kept board while the version stands, the fresh one once a change moves it', async () => {
      const before = await served(store);
      expect(before).toBe(await fresh(store));
      const v0 = await version(store);

      await write(store, stalled.at(-1)!); // a new stalled run: the board changes
      const v1 = await version(store);
      expect(v1).toBeGreaterThan(v0);
      const after = await fresh(store);
      expect(after).not.toBe(before);

      // The version put back: the kept board is what is served (nothing was read again).
      await store.kysely.updateTable('board_version').set({ v: v0 }).execute();
      expect(await served(store)).toBe(before);
      await store.kysely.updateTable('board_version').set({ v: v1 }).execute();
      expect(await served(store)).toBe(after);
    });

    it('moves with a verdict and a deletion, not with request events or a run’s progress', async () => {
      const g = stalled[0];
      let v = await version(store);
      const next = g.events.length + 1;
      await store.admin.writeEvents(g.run.id, [
        { seq: next, json: JSON.stringify({ type: 'request.sent', t: 1, index: 0, requestId: 'x', attempt: 1 }) },
      ]);
      await store.runWrites.update(g.run.id, { lastSeq: next });
      expect(await version(store)).toBe(v);

      const passing = runs.find((r) => r.update.verdict === 'passed')!;
      await store.runWrites.update(passing.run.id, { verdict: 'failed' });
      expect(await version(store)).toBeGreaterThan(v);
      expect(await served(store)).toBe(await fresh(store));

      v = await version(store);
      await store.runWrites.delete(g.run.id);
      expect(await version(store)).toBeGreaterThan(v);
      expect(await served(store)).toBe(await fresh(store));
    });

    if (kind === 'PostgreSQL')
      it('viewers asking alike after a change share one read of the database', async () => {
        await store.kysely
          .updateTable('board_version')
          .set((eb) => ({ v: eb('v', '+', 1) }))
          .execute();
        const k = store.kysely;
        const transaction = k.transaction.bind(k);
        let reads = 0;
        k.transaction = () => {
          reads++;
          return transaction();
        };
        try {
          const replies = await Promise.all(Array.from({ length: 5 }, () => served(store)));
          expect(reads).toBe(1);
          expect(new Set(replies).size).toBe(1);
          expect(replies[0]).toBe(await fresh(store));
        } finally {
          delete (k as { transaction?: unknown }).transaction;
        }
      });

    if (kind === 'PostgreSQL')
      it('two processes on one database: what one writes, the other serves next', async () => {
        const other = await openStore({ dataDir: null, database });
        try {
          const mine = await served(store);
          expect(await served(other)).toBe(mine);
          const extra = [
            ...generateHistory({ seed: 99, runs: 30, pipelines: 2, nodes: 3, fingerprints: 3, stalledShare: 0.5 }),
          ].filter((r) => r.stalls.length > 0)[0];
          await write(other, { ...extra, run: { ...extra.run, id: `${extra.run.id}-other` } });
          const now = await served(store);
          expect(now).not.toBe(mine);
          expect(now).toBe(await fresh(other));
        } finally {
          await other.close();
        }
      });
  });

describe('the board read once at the start (warmBoard)', () => {
  for (const warm of [true, false])
    it(`${warm ? 'keeps' : 'without it, does not keep'} the default board a viewer opening Stalls asks for`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'stallscope-board-warm-'));
      const runs = history();
      const last = runs.filter((g) => g.stalls.length > 0).at(-1)!;
      const setup = await openStore({ dataDir: dir, database: null });
      for (const g of runs) if (g !== last) await write(setup, g);
      await setup.close();
      const app = await buildApp({ dataDir: dir, logger: false, warmBoard: warm });
      try {
        await app.ready();
        const v0 = await version(app.store);
        const before = await fresh(app.store);
        // A change the board shows, with the version put back: only a board kept at the start is served unchanged.
        await write(app.store, last);
        await app.store.kysely.updateTable('board_version').set({ v: v0 }).execute();
        const res = await app.inject({ method: 'GET', url: '/api/stalls' });
        expect(res.statusCode).toBe(200);
        if (warm) expect(res.body).toBe(before);
        else expect(res.body).toBe(await fresh(app.store));
        expect(res.body === before).toBe(warm);
      } finally {
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
});

describe('a read shared among viewers (SQLite’s reader thread)', () => {
  it('is read again when it began before a change the asking viewer already saw', async () => {
    const store = new SqliteStore({ dataDir: null });
    try {
      // The reader thread's answers, in order: a board read at version 1 (shared, begun before the change), then 2.
      const answers = [
        { version: 1, json: 'board at 1' },
        { version: 2, json: 'board at 2' },
      ];
      const reads: string[] = [];
      const reader = {
        read: async (task: string) => {
          reads.push(task);
          return answers.shift();
        },
      } as unknown as ReaderThread;
      const board = new SqliteBoard(store.db, store.kysely, reader);
      store.db.prepare('UPDATE board_version SET v = 2').run();
      expect(await board.viewJson(FILTER, 20, PICK)).toBe('board at 2');
      expect(reads).toEqual(['boardJson', 'boardJson']);
      expect(await board.viewJson(FILTER, 20, PICK)).toBe('board at 2'); // kept at 2
      expect(reads).toHaveLength(2);
    } finally {
      await store.close();
    }
  });
});

describe('BoardCache', () => {
  it('answers only at the version a board was read at', () => {
    const c = new BoardCache();
    c.set('a', { version: 3, json: 'A3' });
    expect(c.get('a', 3)).toBe('A3');
    expect(c.get('a', 4)).toBeNull();
    expect(c.get('b', 3)).toBeNull();
  });

  it('never lets an older snapshot replace a newer board', () => {
    const c = new BoardCache();
    c.set('a', { version: 5, json: 'A5' });
    c.set('a', { version: 4, json: 'A4' });
    expect(c.get('a', 5)).toBe('A5');
    c.set('a', { version: 6, json: 'A6' });
    expect(c.get('a', 6)).toBe('A6');
    expect(c.size).toEqual({ boards: 1, chars: 2 });
  });

  it('drops the least recently served first, past its count or its characters', () => {
    const c = new BoardCache(2, 10);
    c.set('a', { version: 1, json: 'aaaa' });
    c.set('b', { version: 1, json: 'bbbb' });
    expect(c.get('a', 1)).toBe('aaaa'); // a is now the newest
    c.set('c', { version: 1, json: 'cc' });
    expect(c.get('b', 1)).toBeNull();
    expect(c.size).toEqual({ boards: 2, chars: 6 });
    c.set('d', { version: 1, json: 'dddddd' }); // 12 characters with a and c: a goes
    expect(c.get('a', 1)).toBeNull();
    expect(c.get('c', 1)).toBe('cc');
    c.set('e', { version: 1, json: 'e'.repeat(11) }); // larger than the whole bound: not kept
    expect(c.get('e', 1)).toBeNull();
    expect(c.size).toEqual({ boards: 2, chars: 8 });
  });
});
