/**
 * One event the database refuses never takes other events with it (docs/design.md#outage-buffer): a stall
 * report whose phase holds U+0000 (PostgreSQL's text cannot) queued straight into the store's ingest queue
 * beside another run's events — the routes refuse such strings before anything is queued; the writer must hold
 * regardless. The refused event alone is dropped, counted on its run and shown by GET /api/runs/:id.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { completedRequest, newRun, stallReport } from '#test/helpers/sampleEvents.ts';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

describe('a batch holding an event PostgreSQL refuses', () => {
  it("stores every other event, of its run and of others', and counts the refused one on its run", async ({
    newApp,
  }) => {
    const app = await newApp({ dataDir: null, database: await cluster.freshDatabase() });
    for (const id of ['good', 'bad']) await app.store.runWrites.insertRun(newRun(id));
    const push = (runId: string, json: string, effects = {}) => app.store.ingest.push(runId, json, effects);
    const good = Array.from({ length: 12 }, (_, i) => completedRequest('good', i)).flat();
    // One writer batch: the other run's 48 events on both sides of the refused one, and the bad run's own.
    for (const e of good.slice(0, 24)) push('good', JSON.stringify(e));
    push('bad', JSON.stringify({ type: 'note', n: 1 }));
    const nul = stallReport('bad', 1, 'hi\u0000ft');
    push('bad', JSON.stringify({ type: 'telemetry', report: 'nul' }), { stall: nul });
    push('bad', JSON.stringify({ type: 'note', n: 3 }));
    for (const e of good.slice(24)) push('good', JSON.stringify(e));
    await app.store.ingest.flush();

    const seqs = async (id: string) => (await app.store.runReads.eventsAfter(id, 0, 1000)).map((e) => e.seq);
    expect(await seqs('good')).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    const bad = await app.store.runReads.eventsAfter('bad', 0, 1000);
    expect(bad.map((e) => [e.seq, (JSON.parse(e.json) as { n: number }).n])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    const detail = (await app.inject({ method: 'GET', url: '/api/runs/bad' })).json<{
      droppedEvents: number;
      droppedError: string | null;
    }>();
    expect(detail.droppedEvents).toBe(1);
    expect(detail.droppedError).toMatch(/invalid byte sequence|0x00/);
    const other = (await app.inject({ method: 'GET', url: '/api/runs/good' })).json<{ droppedEvents: number }>();
    expect(other.droppedEvents).toBe(0);
  });
});
