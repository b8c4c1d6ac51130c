/**
 * A database an older dashboard wrote (protocol 3) holds the old names in
 * its events, summaries and states: `request.not_dispatched`,
 * `counts.notDispatched`, `failFastTripped` (docs/design.md#legacy-names).
 * Its runs read back under today's names — through the store, the REST
 * replies, the browser's model, the vLLM export and `db import` — and show
 * as the same run recorded today does.
 * Caught: the store's read mapping removed (old event types reach the
 * browser, which then counts no unsent request; the export says the breaker
 * never tripped), or normalizeCounts' (the runs list counts 0 unsent).
 */
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { test as it } from '#test/helpers/fixtures.ts';
import { recordRun } from '#test/helpers/dashboardApp.ts';
import { hangRunEvents, newRun } from '#test/helpers/sampleEvents.ts';
import { asProtocol3 } from '#test/helpers/legacyNames.ts';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { waitFor } from '#test/helpers/waitFor.ts';
import { openStore } from '#server/dashboard/store/openStore.ts';
import { moveRun } from '#server/dashboard/store/common/moveRuns.ts';
import type { RunEvent, RunState, SeqEvent } from '#shared/protocol/protocol.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';

/**
 * Writes run `id` as a protocol-3 dashboard left it: old-named events, summary and state; its request rows
 * (named alike in both protocols) those of `rowsOf`, a run recorded today.
 */
async function storeOldRun(app: FastifyInstance, id: string, rowsOf: string): Promise<void> {
  const events = asProtocol3(hangRunEvents(id));
  const finished = events.find((e) => e.type === 'run.finished') as { summary: Record<string, unknown> };
  const counts = finished.summary.counts as Record<string, number>;
  const state = { runId: id, status: 'finished', seq: events.length, counts, inFlight: 0 } as unknown as RunState;
  await app.store.runWrites.insertWhole(newRun(id, { status: 'finished' }), {
    verdict: 'failed_closed',
    finishedAtMs: 1_005_000,
    summary: finished.summary,
    state,
    lastSeq: events.length,
  });
  await app.store.admin.writeEvents(
    id,
    events.map((e, i) => ({ seq: i + 1, json: JSON.stringify(e) })),
  );
  const rows = await app.store.runReads.requests(rowsOf, 0, 100);
  await app.store.runWrites.writeRows(id, {
    index: rows.requests.map((r) => r.index),
    json: rows.requests.map((r) => JSON.stringify(r).replaceAll(`"${rowsOf}-`, `"${id}-`)),
    status: rows.requests.map((r) => r.status),
  });
}

/** Run `id` recorded today, through the hub. */
async function recordNewRun(app: FastifyInstance, id: string): Promise<void> {
  recordRun(app.hub, id, hangRunEvents(id));
  await waitFor(async () => (await app.inject({ url: `/api/runs/${id}` })).json().status === 'finished');
  await app.store.ingest.flush();
}

/** What the dashboard and the browser show of a run. */
async function shown(app: FastifyInstance, id: string) {
  const run = (await app.inject({ url: `/api/runs/${id}` })).json();
  const listed = (await app.inject({ url: '/api/runs?limit=100' }))
    .json()
    .runs.find((r: { id: string }) => r.id === id);
  const events = (await app.inject({ url: `/api/runs/${id}/events` })).json().events as SeqEvent[];
  const model = applyEvents(emptyRun(id), events);
  const vllm = (await app.inject({ url: `/api/runs/${id}/export?format=vllm` })).json();
  return {
    counts: run.counts,
    listed: listed.counts,
    summary: { verdict: run.summary.verdict, breakerTripped: run.summary.breakerTripped, counts: run.summary.counts },
    // The run's end as the dashboard recorded it (run.status) is the dashboard's, not the run's.
    types: events.map((e) => e.event.type).filter((t) => t !== 'run.status'),
    browser: { counts: model.counts, tripped: model.breaker.tripped, statuses: model.requests.map((r) => r.status) },
    vllm: { tripped: vllm.fail_fast_tripped, unsent: vllm.not_dispatched_requests },
  };
}

describe('a run stored under the names of protocol 3', () => {
  it('reads back under today’s names, as the same run recorded today', async ({ app }) => {
    await recordNewRun(app, 'new');
    await storeOldRun(app, 'old', 'new');
    // Stored as written: the old names are in the database.
    const raw = sqliteOf(app.store).db.prepare('SELECT json FROM events WHERE run_id = ?').pluck().all('old');
    expect(raw.join('\n')).toMatch(/"request\.not_dispatched"[^]*"failFastTripped":true/);

    const stored = await app.store.runReads.eventsAfter('old', 0, 100);
    expect(stored.map((e) => (JSON.parse(e.json) as RunEvent).type)).not.toContain('request.not_dispatched');
    expect((await app.store.runReads.get('old'))?.state?.counts).toMatchObject({ unsent: 2 });
    const old = await shown(app, 'old');
    expect(old.counts).toMatchObject({ unsent: 2, cancelledAfterTimeout: 3, failed: 4 });
    expect(old.summary).toMatchObject({ breakerTripped: true, counts: { unsent: 2 } });
    expect(old.summary).not.toHaveProperty('failFastTripped');
    expect(old.browser.counts).toMatchObject({ unsent: 2 });
    expect(old.vllm).toEqual({ tripped: true, unsent: 2 });
    expect(old).toEqual(await shown(app, 'new'));
  });

  it('`db import` copies it under today’s names', async ({ app }) => {
    await recordNewRun(app, 'new');
    await storeOldRun(app, 'old', 'new');
    const to = await openStore({ dataDir: null, database: null });
    try {
      expect(await moveRun(app.store, to, 'old')).toBe(true);
      const db = sqliteOf(to).db;
      const json = (db.prepare('SELECT json FROM events WHERE run_id = ?').pluck().all('old') as string[]).join('\n');
      const summary = db.prepare('SELECT summary_json FROM runs WHERE id = ?').pluck().get('old') as string;
      expect(json).toContain('"request.unsent"');
      expect(`${json}\n${summary}`).not.toMatch(/\.not_dispatched"|notDispatched|failFastTripped/);
      expect(JSON.parse(summary)).toMatchObject({ breakerTripped: true, counts: { unsent: 2 } });
    } finally {
      await to.close();
    }
  });
});
