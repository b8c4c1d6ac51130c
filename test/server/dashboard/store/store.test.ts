import { describe, expect, it } from 'vitest';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '#server/dashboard/store/sqlite/migrations.ts';
import { resultParts } from '#server/dashboard/store/common/resultParts.ts';
import { DB_FILE, openDb, defaultDataDir } from '#server/dashboard/store/sqlite/db.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { completedRequest, newRun, stallEvent } from '#test/helpers/sampleEvents.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'stallscope-store-'));
const count = (s: SqliteStore, table: string, runId: string) =>
  (s.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE run_id = ?`).get(runId) as { n: number }).n;

describe('store', () => {
  it('applies versioned migrations once and refuses a newer schema', () => {
    const dir = tmp();
    const db = openDb(dir);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    const again = openDb(dir); // re-opening runs nothing twice (CREATE TABLE would throw)
    again.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    again.close();
    expect(() => openDb(dir)).toThrow(/newer/);
  });

  it('defaults the data dir to XDG_DATA_HOME or ~/.local/share', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/x/data' })).toBe('/x/data/stallscope');
    expect(defaultDataDir({})).toMatch(/\.local\/share\/stallscope$/);
  });

  it('batches writes: nothing is committed before the interval or the batch bound, then all at once', async () => {
    const store = new SqliteStore({ dataDir: tmp(), flushIntervalMs: 30, maxBatch: 1000 });
    const hub = new Hub(store);
    store.runs.insertRun(newRun('r1'));
    hub.open('r1', null);
    for (let i = 0; i < 5; i++) for (const e of completedRequest('r1', i)) hub.append('r1', e);
    expect(count(store, 'events', 'r1')).toBe(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(count(store, 'events', 'r1')).toBe(20);
    expect(store.writer.stats.batches).toBe(1);
    expect(count(store, 'requests', 'r1')).toBe(5);
    const row = store.runs.get('r1')!;
    expect(row.lastSeq).toBe(20);
    expect(row.counts.completed).toBe(5);
    // The bound: 1000 events flush synchronously.
    for (let i = 0; i < 250; i++) for (const e of completedRequest('r1', 100 + i)) hub.append('r1', e);
    expect(store.writer.stats.events).toBe(1020);
    store.closeNow();
  });

  it('stores stall reports once per op, marks recovery, and deleting a run deletes every row', () => {
    const store = new SqliteStore({ dataDir: null });
    const hub = new Hub(store);
    store.runs.insertRun(newRun('r2', { metadata: { build: '42' } }));
    hub.open('r2', null);
    hub.append('r2', stallEvent('r2', 7));
    hub.append('r2', stallEvent('r2', 7)); // a duplicate report for the same op is ignored
    hub.append('r2', {
      type: 'telemetry',
      t: 0,
      event: { v: 1, ts: 5, type: 'watchdog.recovered', workerId: 0, opId: 7, requestIds: [], stalledS: 2.5 },
    });
    for (const e of completedRequest('r2', 0)) hub.append('r2', e);
    store.writer.flush();
    const stalls = store.runs.stallReports('r2');
    expect(stalls).toHaveLength(1);
    expect(stalls[0].recovered).toEqual({ stalledS: 2.5, ts: 5 });
    expect(store.runs.list({ limit: 10, offset: 0, metadata: [['build', '42']] }).total).toBe(1);
    expect(store.runs.delete('r2')).toBe(true);
    for (const t of ['events', 'requests', 'stall_reports', 'run_metadata']) expect(count(store, t, 'r2')).toBe(0);
    expect(store.runs.get('r2')).toBeNull();
    store.closeNow();
  });

  it('checkpoints the WAL from a worker thread (the live path never does)', async () => {
    const dir = tmp();
    const store = new SqliteStore({ dataDir: dir });
    const hub = new Hub(store);
    store.runs.insertRun(newRun('w'));
    hub.open('w', null);
    const before = statSync(join(dir, 'stallscope.db')).size;
    for (let i = 0; i < 2000; i++) for (const e of completedRequest('w', i)) hub.append('w', e);
    store.writer.flush();
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const deadline = Date.now() + 5000;
    while (statSync(join(dir, 'stallscope.db')).size <= before && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(statSync(join(dir, 'stallscope.db')).size).toBeGreaterThan(before + 100_000);
    store.closeNow();
  });

  it('filters and pages the run list', () => {
    const store = new SqliteStore({ dataDir: null });
    store.runs.insertRun(newRun('a', { createdAtMs: 1, metadata: { node: 'mi300-7' } }));
    store.runs.insertRun(newRun('b', { createdAtMs: 2, label: 'nightly 100%' }));
    store.runs.insertRun(newRun('c', { createdAtMs: 3 }));
    store.runs.update('a', { verdict: 'failed_closed', status: 'finished' });
    expect(store.runs.list({ limit: 2, offset: 0 }).runs.map((r) => r.id)).toEqual(['c', 'b']);
    expect(store.runs.list({ limit: 2, offset: 2 }).runs.map((r) => r.id)).toEqual(['a']);
    expect(store.runs.list({ limit: 9, offset: 0, verdict: 'failed_closed' }).runs.map((r) => r.id)).toEqual(['a']);
    expect(store.runs.list({ limit: 9, offset: 0, text: 'mi300' }).runs.map((r) => r.id)).toEqual(['a']);
    expect(store.runs.list({ limit: 9, offset: 0, text: '100%' }).runs.map((r) => r.id)).toEqual(['b']);
    expect(store.runs.list({ limit: 9, offset: 0, status: 'running' }).total).toBe(2);
    store.closeNow();
  });

  it('marks runs left running as interrupted on open, keeping requests and stall reports', async () => {
    const dir = tmp();
    const store = new SqliteStore({ dataDir: dir });
    const hub = new Hub(store);
    store.runs.insertRun(newRun('r3'));
    hub.open('r3', null);
    for (const e of completedRequest('r3', 0)) hub.append('r3', e);
    hub.append('r3', stallEvent('r3', 1));
    store.writer.flush();
    store.db.close(); // no orderly finish
    const reopened = new SqliteStore({ dataDir: dir });
    expect(reopened.admin.recoverInterruptedNow(123)).toEqual(['r3']);
    const r = reopened.runs.get('r3')!;
    expect(r.status).toBe('interrupted');
    expect(r.verdict).toBe('interrupted');
    expect(r.lastSeq).toBe(6);
    expect((await reopened.runReads.requests('r3', 0, 10)).requests[0].status).toBe('completed');
    expect(reopened.runs.stallReports('r3')).toHaveLength(1);
    expect(JSON.parse(reopened.runs.eventsAfter('r3', 5, 10)[0].json)).toMatchObject({
      type: 'run.status',
      status: 'interrupted',
    });
    expect(reopened.admin.recoverInterruptedNow(124)).toEqual([]);
    reopened.closeNow();
  });

  it('cuts a serialized result into bounded parts, never inside a surrogate pair', () => {
    expect(resultParts('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(resultParts('', 3)).toEqual([]);
    const text = 'ab\u{1F3B5}cd\u{1F3B5}';
    const parts = resultParts(text, 3);
    expect(parts).toEqual(['ab', '\u{1F3B5}c', 'd\u{1F3B5}']);
    expect(parts.every((p) => p.length <= 3)).toBe(true);
    expect(parts.join('')).toBe(text);
  });

  it('reads a result stored in parts only once all are in, and a whole result given later replaces them', () => {
    const store = new SqliteStore({ dataDir: null });
    store.runs.insertRun(newRun('p1'));
    const text = JSON.stringify({ completed: 2, label: 'caf\u00e9 \u{1F3B5}', ttfts: [0.1, 0.2] });
    const parts = resultParts(text, 7);
    parts.forEach((p, k) => store.runs.writeResultPart('p1', k, p));
    expect(store.runs.result('p1')).toBeNull(); // not yet said to be whole
    store.runs.update('p1', { resultParts: parts.length + 1 });
    expect(store.runs.result('p1')).toBeNull(); // one missing
    store.runs.update('p1', { resultParts: parts.length });
    expect(store.runs.result('p1')).toEqual(JSON.parse(text));
    store.runs.update('p1', { result: { completed: 3 } });
    expect(store.runs.result('p1')).toEqual({ completed: 3 });
    expect(count(store, 'run_results', 'p1')).toBe(0);
    store.runs.delete('p1');
    store.closeNow();
  });

  it('drops the parts of an import stopped before its result was whole when it is marked interrupted', () => {
    const dir = tmp();
    const store = new SqliteStore({ dataDir: dir });
    store.runs.insertRun(newRun('half'));
    store.runs.writeResultPart('half', 0, '{"compl');
    store.db.close();
    const reopened = new SqliteStore({ dataDir: dir });
    expect(reopened.admin.recoverInterruptedNow(1)).toEqual(['half']);
    expect(count(reopened, 'run_results', 'half')).toBe(0);
    expect(reopened.runs.result('half')).toBeNull();
    reopened.closeNow();
  });

  it('opens a database of schema 1 with its results kept whole in the runs row', () => {
    const dir = tmp();
    const old = new Database(join(dir, DB_FILE));
    old.exec(MIGRATIONS[0] as string);
    old.pragma('user_version = 1');
    old
      .prepare(
        `INSERT INTO runs (id, source, status, created_at_ms, result_json) VALUES ('v1', 'import', 'finished', 1, ?)`,
      )
      .run(JSON.stringify({ completed: 5, ttfts: [0.5] }));
    old.close();
    const store = new SqliteStore({ dataDir: dir });
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(store.runs.result('v1')).toEqual({ completed: 5, ttfts: [0.5] });
    store.closeNow();
  });
});
