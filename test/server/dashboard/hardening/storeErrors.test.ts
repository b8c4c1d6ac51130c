/**
 * A database fault is "retry later", never a 500 (docs/design.md#outage-buffer): a query that lost its connection
 * — whatever route it was in — answers 503 STORE_UNAVAILABLE with Retry-After. And the embedded writer counts a
 * batch the database refused on each run it held, as the PostgreSQL writer does (the run's page says so).
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandler } from '#server/dashboard/plugins/errors.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { newRun } from '#test/helpers/sampleEvents.ts';

describe('a route whose query lost the database', () => {
  it('answers 503 STORE_UNAVAILABLE with Retry-After for each way pg says so; a bug stays a 500', async () => {
    const app = Fastify({ logger: false });
    const failures: string[] = [];
    installErrorHandler(app, undefined, (line) => failures.push(line));
    const thrown: Record<string, Error> = {
      terminated: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      dropped: new Error('Connection terminated unexpectedly'),
      refused: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      recovering: Object.assign(new Error('the database system is in recovery mode'), { code: '57P03' }),
      bug: new TypeError('x is undefined'),
    };
    app.get('/:what', async (req) => {
      throw thrown[(req.params as { what: string }).what];
    });
    for (const what of ['terminated', 'dropped', 'refused', 'recovering']) {
      const r = await app.inject({ method: 'GET', url: `/${what}` });
      expect([what, r.statusCode, r.headers['retry-after'], r.json<{ code: string }>().code]).toEqual([
        what,
        503,
        '1',
        'STORE_UNAVAILABLE',
      ]);
    }
    const bug = await app.inject({ method: 'GET', url: '/bug' });
    expect([bug.statusCode, bug.headers['retry-after']]).toEqual([500, undefined]);
    // Only the bug is logged as a failure.
    expect(failures).toHaveLength(1);
    await app.close();
  });
});

describe('the embedded writer', () => {
  it('counts a refused batch on each run it held, with the database’s words', async () => {
    const store = new SqliteStore({ dataDir: null });
    try {
      for (const id of ['a', 'b']) await store.runWrites.insertRun(newRun(id));
      store.db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.json LIKE '%poison%'
        BEGIN SELECT RAISE(ABORT, 'poison refused'); END`);
      store.ingest.push('a', JSON.stringify({ type: 'note' }), {});
      store.ingest.push('a', JSON.stringify({ type: 'poison' }), {});
      store.ingest.push('b', JSON.stringify({ type: 'note' }), {});
      await expect(async () => store.ingest.flush()).rejects.toThrow(/poison refused/);
      const dropped = store.db.prepare('SELECT id, dropped_events, dropped_error FROM runs ORDER BY id').all() as {
        id: string;
        dropped_events: number;
        dropped_error: string | null;
      }[];
      expect(dropped).toEqual([
        { id: 'a', dropped_events: 2, dropped_error: 'poison refused' },
        { id: 'b', dropped_events: 1, dropped_error: 'poison refused' },
      ]);
      expect((await store.runReads.get('a'))?.droppedEvents).toBe(2);
    } finally {
      store.closeNow();
    }
  });
});
