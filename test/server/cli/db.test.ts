/**
 * `stallscope db export` / `db import` against a real SQLite data folder and
 * a throwaway PostgreSQL: every run moves whole, a second move changes
 * nothing, and a folder a dashboard holds is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { run } from '#server/cli/db.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { finalizeRun } from '#server/dashboard/runs/finalize.ts';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { lockDataDir } from '#server/dashboard/store/sqlite/dataDirLock.ts';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import {
  completedRequest,
  hangRunEvents,
  newRun,
  outcome,
  runStarted,
  stallEvent,
} from '#test/helpers/sampleEvents.ts';
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
  for (const id of await s.admin.allRunIds()) {
    const r = (await s.runReads.get(id))!;
    out.push({
      id,
      status: r.status,
      lastSeq: r.lastSeq,
      events: (await s.runReads.eventsAfter(id, 0, 100_000)).length,
      rows: (await s.runReads.requests(id, 0, 100_000)).total,
      stalls: (await s.runReads.stallReports(id)).length,
      // Unsent ranges move as ranges, not as a row per request; a pin moves with its run.
      ranges: (await s.kysely.selectFrom('request_ranges').select('from_idx').where('run_id', '=', id).execute())
        .length,
      storedRows: (await s.kysely.selectFrom('requests').select('idx').where('run_id', '=', id).execute()).length,
      pinned: (await s.retention.retentionFacts(id))?.pinned,
    });
  }
  return out;
}

/** Ten requests that ran (one failed), then the stop: the other 90 unsent, one range. */
function stoppedRunEvents(id: string): RunEvent[] {
  const events: RunEvent[] = [runStarted(id, 100)];
  for (let i = 0; i < 9; i++) events.push(...completedRequest(id, i, i * 4));
  events.push(
    { type: 'request.queued', t: 40, index: 9, requestId: `${id}-9` },
    { type: 'request.sent', t: 41, index: 9, requestId: `${id}-9`, attempt: 1 },
    { type: 'request.failed', t: 42, outcome: outcome(id, 9, 'failed', { error: 'HTTP 500', sentT: 41 }) },
    { type: 'requests.unsent', t: 50, from: 10, to: 100, error: 'stopped', stoppedBy: 'breaker' },
  );
  return events;
}

describe('stallscope db', () => {
  it('exports a data folder into PostgreSQL and imports it back, idempotently', async () => {
    const dir = tmp();
    const local = new SqliteStore({ dataDir: dir });
    const hub = new Hub(local);
    for (const id of ['n1', 'n2']) {
      local.runs.insertRun(newRun(id));
      hub.open(id, id);
      for (const e of hangRunEvents(id)) hub.append(id, e);
      await finalizeRun(hub, id, { status: 'finished' });
    }
    local.runs.insertRun(newRun('stopped'));
    hub.open('stopped', 'stopped');
    for (const e of stoppedRunEvents('stopped')) hub.append('stopped', e);
    await finalizeRun(hub, 'stopped', { status: 'finished' });
    await local.retention.setPinned('n1', true);
    const before = await inventory(local);
    expect(before.find((r) => r.id === 'stopped')).toMatchObject({ rows: 100, storedRows: 10, ranges: 1 });
    await local.close();
    const url = await cluster.freshDatabase();
    expect(await run(['export', '--to', url, '--data-dir', dir])).toBe(0);
    expect(await run(['export', '--to', url, '--data-dir', dir])).toBe(0); // twice: nothing changes
    const pg = await openPgStore({ url });
    expect(await inventory(pg)).toEqual(before);
    await pg.close();
    const back = tmp();
    expect(await run(['import', '--from', url, '--data-dir', back])).toBe(0);
    const again = new SqliteStore({ dataDir: back });
    expect(await inventory(again)).toEqual(before);
    await again.close();
  });

  it('leaves no connection open when it returns: a store that never queried through Kysely still ends its pool', async () => {
    // `db export` of an empty folder reads nothing from PostgreSQL; its migration's client used to stay idle
    // in the pool for the pool's 10 s idle timeout, keeping `stallscope db` alive ~10 s after its answer.
    const url = await cluster.freshDatabase();
    const name = new URL(url).pathname.slice(1);
    expect(await run(['export', '--to', url, '--data-dir', tmp()])).toBe(0);
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    try {
      const open = async () =>
        Number((await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].n);
      await expect.poll(open, { timeout: 3000, interval: 50 }).toBe(0);
    } finally {
      await admin.end();
    }
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

  it('export --to a folder that does not exist yet creates it and moves every run there', async () => {
    const dir = tmp();
    const local = new SqliteStore({ dataDir: dir });
    const hub = new Hub(local);
    local.runs.insertRun(newRun('n1'));
    hub.open('n1', 'n1');
    for (const e of hangRunEvents('n1')) hub.append('n1', e);
    await finalizeRun(hub, 'n1', { status: 'finished' });
    const before = await inventory(local);
    await local.close();
    const fresh = join(tmp(), 'new', 'folder');
    expect(await run(['export', '--to', fresh, '--data-dir', dir])).toBe(0);
    const moved = new SqliteStore({ dataDir: fresh });
    expect(await inventory(moved)).toEqual(before);
    await moved.close();
  });

  it('a run PostgreSQL cannot hold (NUL in a stall phase, a request row) is named and skipped, the rest moved, exit 1', async () => {
    const dir = tmp();
    const local = new SqliteStore({ dataDir: dir });
    const hub = new Hub(local);
    // SQLite stores the NUL; PostgreSQL refuses it. `bad` is the oldest, so it is moved first.
    for (const [i, id] of ['bad', 'bad2', 'ok1', 'ok2'].entries()) {
      local.runs.insertRun(newRun(id, { createdAtMs: 1_000 + i }));
      hub.open(id, id);
      const events = hangRunEvents(id);
      if (id === 'bad') events.push(stallEvent(id, 9, 'hi\u0000ft'));
      for (const e of events) hub.append(id, e);
      await finalizeRun(hub, id, { status: 'finished' });
    }
    // `bad2` fails only once its row is written (at its request rows): what was written must go again.
    await local.kysely
      .updateTable('requests')
      .set({ status: 'comp\u0000leted' })
      .where('run_id', '=', 'bad2')
      .where('idx', '=', 0)
      .execute();
    const before = (await inventory(local)).filter((r) => !r.id.startsWith('bad'));
    expect(before.map((r) => r.id).sort()).toEqual(['ok1', 'ok2']);
    await local.close();
    const url = await cluster.freshDatabase();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        errors.mockClear();
        expect(await run(['export', '--to', url, '--data-dir', dir])).toBe(1);
        const said = errors.mock.calls.map((c) => String(c[0]));
        expect(said.filter((l) => l.includes('run bad was not moved'))).toHaveLength(1);
        expect(said.join('\n')).toMatch(/run bad was not moved: stallReports\.\d+\.phase holds U\+0000/);
        expect(said.filter((l) => l.includes('run bad2 was not moved'))).toHaveLength(1);
        expect(said.join('\n')).not.toMatch(/run ok/);
        // The others are moved whole; nothing of `bad` is there, however often it is tried.
        const pg = await openPgStore({ url });
        expect((await inventory(pg)).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
          before.sort((a, b) => a.id.localeCompare(b.id)),
        );
        for (const id of ['bad', 'bad2']) {
          expect(await pg.runReads.exists(id)).toBe(false);
          expect(await pg.kysely.selectFrom('events').select('seq').where('run_id', '=', id).execute()).toEqual([]);
        }
        await pg.close();
      }
    } finally {
      errors.mockRestore();
    }
  });
});
