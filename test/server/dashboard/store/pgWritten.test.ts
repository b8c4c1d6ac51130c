/**
 * A reported batch's answer on PostgreSQL waits for its own events' commit, not for the writer's queue to be
 * empty (docs/design.md#team-dashboard): under a steady stream of other reporters the queue never empties, and
 * waiting for it made one reporter's ingest latency everyone's (p99 412 ms at 32 reporters).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { newRun } from '#test/helpers/sampleEvents.ts';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

const warning = (t: number, message: string) => JSON.stringify({ type: 'run.warning', t, message });

describe('the PostgreSQL store settles a batch at its own commit', () => {
  it('settled() resolves while another run keeps the queue busy, with the batch committed', async () => {
    const store = await openPgStore({ url: await cluster.freshDatabase() });
    try {
      await store.runWrites.insertRun(newRun('busy'));
      await store.runWrites.insertRun(newRun('mine'));
      // Another reporter that never pauses: each commit of its events brings the next one (deterministic: the
      // queue is never empty when the writer looks), for at most 5 s either way.
      let n = 0;
      let flowing = true;
      store.ingest.subscribe({
        numbered: (runId) => {
          if (flowing && runId === 'busy') store.ingest.push('busy', warning(n, `busy ${n++}`), {});
        },
      });
      const stop = setTimeout(() => (flowing = false), 5000);
      store.ingest.push('busy', warning(n, `busy ${n++}`), {});
      try {
        await new Promise((r) => setTimeout(r, 50)); // the stream is flowing before our batch
        store.ingest.push('mine', warning(0, 'mine'), {});
        const settled = await Promise.race([
          store.ingest.settled().then(() => 'settled'),
          new Promise((r) => setTimeout(() => r('still waiting'), 3000)),
        ]);
        expect(settled).toBe('settled');
        expect(flowing).toBe(true);
        const mine = await store.runReads.eventsAfter('mine', 0, 10);
        expect(mine.map((e) => e.seq)).toEqual([1]);
      } finally {
        flowing = false;
        clearTimeout(stop);
      }
    } finally {
      await store.close();
    }
  });
});
