/**
 * `stallscope db export` / `db import` against a real SQLite data folder and
 * a throwaway PostgreSQL: every run moves whole, a second move changes
 * nothing, and a folder a dashboard holds is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '#server/cli/db.ts';
import { Store } from '#server/dashboard/store/store.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { finalizeRun } from '#server/dashboard/runs/finalize.ts';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { lockDataDir } from '#server/dashboard/store/dataDirLock.ts';
import type { DashboardStore } from '#server/dashboard/store/storeApi.ts';
import { hangRunEvents, newRun } from '#test/helpers/sampleEvents.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';

let cluster: PgCluster;
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'stallscope-db-'));
  dirs.push(d);
  return d;
};
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => {
  cluster?.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Each run's id, status, last seq, and how many events and request rows it has. */
async function inventory(s: DashboardStore) {
  const out = [];
  for (const id of await s.allRunIds()) {
    const r = (await s.get(id))!;
    out.push({
      id,
      status: r.status,
      lastSeq: r.lastSeq,
      events: (await s.eventsAfter(id, 0, 100_000)).length,
      rows: (await s.requests(id, 0, 100_000)).total,
      stalls: (await s.stallReports(id)).length,
    });
  }
  return out;
}

describe('stallscope db', () => {
  it('exports a data folder into PostgreSQL and imports it back, idempotently', async () => {
    const dir = tmp();
    const local = new Store({ dataDir: dir });
    const hub = new Hub(local);
    for (const id of ['n1', 'n2']) {
      local.runs.insertRun(newRun(id));
      hub.open(id, id);
      for (const e of hangRunEvents(id)) hub.append(id, e);
      await finalizeRun(hub, id, { status: 'finished' });
    }
    const before = await inventory(local);
    await local.close();
    const url = await cluster.freshDatabase();
    expect(await run(['export', '--to', url, '--data-dir', dir])).toBe(0);
    expect(await run(['export', '--to', url, '--data-dir', dir])).toBe(0); // twice: nothing changes
    const pg = await openPgStore({ url });
    expect(await inventory(pg)).toEqual(before);
    await pg.close();
    const back = tmp();
    expect(await run(['import', '--from', url, '--data-dir', back])).toBe(0);
    const again = new Store({ dataDir: back });
    expect(await inventory(again)).toEqual(before);
    await again.close();
  });

  it('refuses a data folder a dashboard holds, and says what to type without a direction', async () => {
    const dir = tmp();
    const lock = lockDataDir(dir);
    try {
      expect(await run(['export', '--to', await cluster.freshDatabase(), '--data-dir', dir])).toBe(4);
    } finally {
      lock.release();
    }
    expect(await run(['export', '--data-dir', dir])).toBe(2);
  });
});
