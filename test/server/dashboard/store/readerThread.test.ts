/**
 * The SQLite store reads the stall board on its reader thread (server/dashboard/store/sqlite/readerThread.ts),
 * never on the dashboard's event loop: the loop keeps turning while a board is read, the route's reply equals
 * the same fold over the same runs done here, a read past its deadline is refused with STORE_READ_TIMEOUT (and
 * the stuck thread replaced), a full queue with STORE_BUSY, and no thread is left after the store closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#server/dashboard/app.ts';
import { boardView } from '#server/dashboard/store/common/boardView.ts';
import { BOARD_DEFAULT_GROUPS, BOARD_MAX_RUNS } from '#shared/stalls/boardLimits.ts';
import { ReaderThread } from '#server/dashboard/store/sqlite/readerThread.ts';
import { DB_FILE } from '#server/dashboard/store/sqlite/db.ts';
import { stallsReply } from '#shared/stalls/stallsApi.ts';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { loadHistory } from '#test/perf/boardHistory.ts';

const end = Date.UTC(2026, 11, 1);
const all = { maxRuns: BOARD_MAX_RUNS };

describe('the SQLite board on the reader thread', () => {
  let dir: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stallscope-reader-'));
    app = await buildApp({ dataDir: dir, logger: false, store: { flushIntervalMs: 10 } });
    await app.ready();
    await loadHistory(app.store, { seed: 5, runs: 600, days: 30, pipelines: 3, nodes: 5, fingerprints: 6, endMs: end });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the route with the same reply as the fold over the same runs, filtered or not', async () => {
    for (const [query, metadata] of [
      ['last=7', []],
      ['metadata=ci_pipeline=vllm-omni%2Fnightly-1', [['ci_pipeline', 'vllm-omni/nightly-1']]],
    ] as [string, [string, string][]][]) {
      const res = await app.inject(`/api/stalls?${query}`);
      expect(res.statusCode).toBe(200);
      const last = query === 'last=7' ? 7 : 20;
      // The route's default: the most frequent BOARD_DEFAULT_GROUPS groups.
      const here = boardView(await app.store.board.runs({ ...all, metadata }), last, { limit: BOARD_DEFAULT_GROUPS });
      expect(here.groups.length).toBeGreaterThan(0);
      expect(res.json()).toEqual(JSON.parse(JSON.stringify(stallsReply(here))));
    }
  });

  it('keeps the event loop turning while the board is read (a fold on the loop lets no turn pass)', async () => {
    let turns = 0;
    let reading = true;
    const spin = (async () => {
      while (reading) {
        await nextTurn();
        turns++;
      }
    })();
    const before = turns;
    const board = await app.store.board.view(all, 20);
    const during = turns - before;
    reading = false;
    await spin;
    expect(board.runsConsidered).toBe(600);
    expect(during).toBeGreaterThanOrEqual(2);
  });
});

describe('the reader thread itself', () => {
  let dir: string;
  let app: FastifyInstance;
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stallscope-reader-'));
    app = await buildApp({ dataDir: dir, logger: false, store: { flushIntervalMs: 10 } });
    await app.ready();
    await loadHistory(app.store, { seed: 9, runs: 50, days: 5, pipelines: 2, nodes: 3, fingerprints: 3, endMs: end });
    file = join(dir, DB_FILE);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a read past its deadline, replaces the stuck thread, and answers the next read', async () => {
    // 5 s: the replacement thread's start (loading its modules, opening the file) counts against the read's deadline,
    // ~1.5 s on this machine under load ~10.
    const reader = new ReaderThread(file, { deadlineMs: 5000 });
    try {
      await expect(reader.read('hold', { ms: 20_000 })).rejects.toMatchObject({ code: 'STORE_READ_TIMEOUT' });
      const board = await reader.read('board', { filter: all, last: 20 });
      expect(board.runsConsidered).toBe(50);
    } finally {
      await reader.close();
    }
    expect(reader.liveThreads).toBe(0);
  });

  it('refuses a read beyond its queue with STORE_BUSY', async () => {
    const reader = new ReaderThread(file, { maxQueue: 1 });
    try {
      const first = reader.read('hold', { ms: 200 });
      await expect(reader.read('board', { filter: all, last: 20 })).rejects.toMatchObject({ code: 'STORE_BUSY' });
      expect(await first).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
  });

  it('shares one read among identical requests in flight (five viewers of one board cost one read)', async () => {
    const reader = new ReaderThread(file, { maxQueue: 1 });
    try {
      const boards = await Promise.all(
        Array.from({ length: 5 }, () => reader.read('board', { filter: all, last: 20 })),
      );
      expect(boards.map((b) => b.runsConsidered)).toEqual([50, 50, 50, 50, 50]);
    } finally {
      await reader.close();
    }
  });

  it("leaves no thread after the store closes, and the store's board reads on one before", async () => {
    const store = sqliteOf(app.store);
    await store.board.view(all, 20);
    expect(store.reader!.liveThreads).toBe(1);
    await app.close();
    expect(store.reader!.liveThreads).toBe(0);
    await expect(store.board.view(all, 20)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
