/**
 * The store contract (docs/design.md#team-dashboard): the same tests run
 * against every store (SQLite and PostgreSQL), through the DashboardStore
 * interface only. A factory gives a fresh database; `reopen` opens another
 * store on the same database (a restart, or a second process).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DashboardStore } from '#server/dashboard/store/common/storeApi.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { finalizeRun } from '#server/dashboard/runs/finalize.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { completedRequest, hangRunEvents, newRun, outcome, runStarted } from '#test/helpers/sampleEvents.ts';

export interface StoreFactory {
  /** A store on a new, empty database, and a way to open another store on that same database. */
  fresh(): Promise<{ store: DashboardStore; reopen: () => Promise<DashboardStore> }>;
}

export function storeContract(name: string, factory: () => StoreFactory): void {
  describe(`store contract: ${name}`, () => {
    const open: DashboardStore[] = [];
    const fresh = async () => {
      const f = await factory().fresh();
      open.push(f.store);
      return {
        store: f.store,
        reopen: async () => {
          const s = await f.reopen();
          open.push(s);
          return s;
        },
      };
    };
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close().catch(() => undefined);
    });

    /** Records a run through a hub (its events folded into the effects the store keeps). */
    async function record(store: DashboardStore, runId: string, events: RunEvent[], finish = true) {
      const hub = new Hub(store);
      await store.runWrites.insertRun(newRun(runId, { metadata: { ci_pipeline: 'nightly', node: runId } }));
      hub.open(runId, `label-${runId}`);
      for (const e of events) hub.append(runId, e);
      if (finish) await finalizeRun(hub, runId, { status: 'finished' });
      await store.ingest.flush();
      return hub;
    }

    it('numbers each run’s events from 1 without gaps, hands them back in order, and reads them back', async () => {
      const { store } = await fresh();
      const seen: [string, number][] = [];
      store.ingest.subscribe({ numbered: (r, s) => seen.push([r, s]) });
      await store.runWrites.insertRun(newRun('a'));
      await store.runWrites.insertRun(newRun('b'));
      for (let i = 0; i < 5; i++) {
        store.ingest.push('a', JSON.stringify({ type: 'run.warning', t: i, message: `a${i}` }), {});
        store.ingest.push('b', JSON.stringify({ type: 'run.warning', t: i, message: `b${i}` }), {});
      }
      await store.ingest.flush();
      expect(seen.filter(([r]) => r === 'a').map(([, s]) => s)).toEqual([1, 2, 3, 4, 5]);
      expect(seen.filter(([r]) => r === 'b').map(([, s]) => s)).toEqual([1, 2, 3, 4, 5]);
      const a = await store.runReads.eventsAfter('a', 2, 10);
      expect(a.map((e) => [e.seq, (JSON.parse(e.json) as { message: string }).message])).toEqual([
        [3, 'a2'],
        [4, 'a3'],
        [5, 'a4'],
      ]);
      expect((await store.runReads.get('a'))!.lastSeq).toBe(5);
    });

    it('continues a run’s numbering from what is stored when another store opens the database', async () => {
      const { store, reopen } = await fresh();
      await store.runWrites.insertRun(newRun('c'));
      for (let i = 0; i < 3; i++)
        store.ingest.push('c', JSON.stringify({ type: 'run.warning', t: i, message: 'x' }), {});
      await store.ingest.flush();
      await store.close();
      const again = await reopen();
      const seen: number[] = [];
      again.ingest.subscribe({ numbered: (_r, s) => seen.push(s) });
      again.ingest.push('c', JSON.stringify({ type: 'run.warning', t: 9, message: 'y' }), {});
      await again.ingest.flush();
      expect(seen).toEqual([4]);
      expect((await again.runReads.eventsAfter('c', 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    });

    it('keeps what events imply: request rows, stall reports with fingerprints, the first timeout, the end', async () => {
      const { store } = await fresh();
      await record(store, 'h', hangRunEvents('h'));
      const run = (await store.runReads.get('h'))!;
      expect(run).toMatchObject({ status: 'finished', stallCount: 1, stallPhase: 'hift', source: 'dashboard' });
      expect(run.firstTimeout).toMatchObject({ index: 2 });
      expect(run.lastSeq).toBe(hangRunEvents('h').length + 1); // and the run.status that ends it
      const rows = await store.runReads.requests('h', 0, 100);
      expect(rows.requests.map((r) => [r.index, r.status])).toEqual([
        [0, 'completed'],
        [1, 'completed'],
        [2, 'timed_out'],
        [3, 'cancelled_after_timeout'],
        [4, 'not_dispatched'],
        [5, 'not_dispatched'],
      ]);
      const stalls = await store.runReads.stallReports('h');
      expect(stalls).toHaveLength(1);
      expect(stalls[0].fingerprint?.phase).toBe('hift');
      const board = await store.board.runs({ maxRuns: 10 });
      expect(board.runs[0].evidence.map((e) => e.kind).sort()).toEqual(['timeout', 'watchdog']);
    });

    it('lists an unsent range as a row per request: total, pages across its ends, a status filter', async () => {
      const { store } = await fresh();
      const events: RunEvent[] = [runStarted('u', 100)];
      for (let i = 0; i < 9; i++) events.push(...completedRequest('u', i, i * 4));
      events.push(
        { type: 'request.queued', t: 40, index: 9, requestId: 'u-9' },
        { type: 'request.sent', t: 41, index: 9, requestId: 'u-9', attempt: 1 },
        { type: 'request.failed', t: 42, outcome: outcome('u', 9, 'failed', { error: 'HTTP 500', sentT: 41 }) },
        { type: 'requests.unsent', t: 50, from: 10, to: 100, error: 'stopped', stoppedBy: 'breaker' },
      );
      await record(store, 'u', events);
      // One record for the 90, not 90 rows (a mutation storing rows, or dropping the range, shows here).
      const ranges = await store.kysely.selectFrom('request_ranges').selectAll().where('run_id', '=', 'u').execute();
      expect(ranges.map((r) => [Number(r.from_idx), Number(r.to_idx), r.status])).toEqual([
        [10, 100, 'not_dispatched'],
      ]);
      const rows = (p: { total: number; requests: { index: number; status: string; requestId: string }[] }) =>
        [p.total, p.requests.map((r) => [r.index, r.status, r.requestId])] as const;
      expect((await store.runReads.requests('u', 0, 1000)).total).toBe(100);
      // Across the range's start: stored rows, then synthesised ones with the run's ids.
      expect(rows(await store.runReads.requests('u', 8, 4))).toEqual([
        100,
        [
          [8, 'completed', 'u-8'],
          [9, 'failed', 'u-9'],
          [10, 'not_dispatched', 'u-10'],
          [11, 'not_dispatched', 'u-11'],
        ],
      ]);
      // Across its end: the page stops at the run's last request.
      expect(rows(await store.runReads.requests('u', 97, 10))).toEqual([
        100,
        [
          [97, 'not_dispatched', 'u-97'],
          [98, 'not_dispatched', 'u-98'],
          [99, 'not_dispatched', 'u-99'],
        ],
      ]);
      expect(rows(await store.runReads.requests('u', 88, 5, 'not_dispatched'))).toEqual([
        90,
        [98, 99].map((i) => [i, 'not_dispatched', `u-${i}`]),
      ]);
      expect(rows(await store.runReads.requests('u', 0, 10, 'failed'))).toEqual([1, [[9, 'failed', 'u-9']]]);
      expect((await store.runReads.requests('u', 0, 1, 'completed')).total).toBe(9);
      const json = await store.runReads.requestsJson('u', 50, 1);
      expect(JSON.parse(json.json[0])).toMatchObject({ index: 50, requestId: 'u-50', status: 'not_dispatched' });
    });

    it('lists newest first with filters (verdict, text with LIKE characters, metadata, time) and paging', async () => {
      const { store } = await fresh();
      for (const [id, at] of [
        ['r1', 1000],
        ['r2', 3000],
        ['r_3', 2000],
      ] as const)
        await store.runWrites.insertRun(
          newRun(id, { createdAtMs: at, metadata: { node: id === 'r2' ? 'gpu-2' : 'gpu-1' } }),
        );
      await store.runWrites.update('r2', { status: 'finished', verdict: 'pass' });
      const all = await store.runReads.list({ limit: 10, offset: 0 });
      expect(all.runs.map((r) => r.id)).toEqual(['r2', 'r_3', 'r1']);
      expect(all.total).toBe(3);
      expect((await store.runReads.list({ limit: 10, offset: 0, text: 'r_' })).runs.map((r) => r.id)).toEqual(['r_3']);
      expect((await store.runReads.list({ limit: 10, offset: 0, verdict: 'pass' })).runs.map((r) => r.id)).toEqual([
        'r2',
      ]);
      const gpu1 = await store.runReads.list({ limit: 10, offset: 0, metadata: [['node', 'gpu-1']] });
      expect(gpu1.runs.map((r) => r.id)).toEqual(['r_3', 'r1']);
      const window = await store.runReads.list({ limit: 10, offset: 0, since: 1500, until: 3000 });
      expect(window.runs.map((r) => r.id)).toEqual(['r_3']);
      const page = await store.runReads.list({ limit: 1, offset: 1 });
      expect(page).toMatchObject({ total: 3, runs: [{ id: 'r_3' }] });
    });

    it('stores a result in parts counted once all are in; a whole result replaces them; delete removes all', async () => {
      const { store } = await fresh();
      await record(store, 'p', [runStarted('p', 2), ...completedRequest('p', 0)]);
      await store.runWrites.writeResultPart('p', 0, '{"a":');
      await store.runWrites.writeResultPart('p', 1, '1}');
      expect(await store.runReads.result('p')).toBeNull();
      await store.runWrites.update('p', { resultParts: 2 });
      expect(await store.runReads.result('p')).toEqual({ a: 1 });
      await store.runWrites.update('p', { result: { b: 2 } });
      expect(await store.runReads.result('p')).toEqual({ b: 2 });
      expect(await store.runWrites.delete('p')).toBe(true);
      expect(await store.runReads.get('p')).toBeNull();
      expect(await store.runReads.eventsAfter('p', 0, 10)).toEqual([]);
      expect((await store.runReads.requests('p', 0, 10)).total).toBe(0);
      expect(await store.runWrites.delete('p')).toBe(false);
    });

    it('marks runs a store that is gone left running as interrupted, once', async () => {
      const { store, reopen } = await fresh();
      await record(store, 'left', [runStarted('left', 3), ...completedRequest('left', 0)], false);
      const last = (await store.runReads.get('left'))!.lastSeq;
      await store.close();
      const again = await reopen();
      expect(await again.admin.recoverInterrupted(123)).toEqual(['left']);
      const run = (await again.runReads.get('left'))!;
      expect(run).toMatchObject({ status: 'interrupted', verdict: 'interrupted', finishedAtMs: 123 });
      expect(run.lastSeq).toBe(last + 1);
      const [ev] = await again.runReads.eventsAfter('left', last, 10);
      expect(JSON.parse(ev.json)).toMatchObject({ type: 'run.status', status: 'interrupted' });
      expect((await again.runReads.requests('left', 0, 10)).total).toBe(1);
      expect(await again.admin.recoverInterrupted(124)).toEqual([]);
    });

    it('moves a run whole (row, rows, events, stall rows) into another store, and a second move changes nothing', async () => {
      const { store: from } = await fresh();
      await record(from, 'm', hangRunEvents('m'));
      const { store: to } = await fresh();
      const run = (await from.runReads.get('m'))!;
      for (let pass = 0; pass < 2; pass++) {
        const { moveRun } = await import('#server/dashboard/store/common/moveRuns.ts');
        await moveRun(from, to, 'm');
      }
      expect(await to.admin.allRunIds()).toEqual(['m']);
      expect(await to.runReads.get('m')).toEqual(run);
      expect(await to.runReads.eventsAfter('m', 0, 1000)).toEqual(await from.runReads.eventsAfter('m', 0, 1000));
      expect(await to.runReads.requests('m', 0, 1000)).toEqual(await from.runReads.requests('m', 0, 1000));
      expect(await to.admin.stallRows('m')).toEqual(await from.admin.stallRows('m'));
    });
  });
}
