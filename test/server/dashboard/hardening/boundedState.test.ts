/**
 * Memory per finished request in the hub: an ended request's row goes to the
 * store and leaves memory, and the request-id indexes (telemetry joins, the
 * Code2Wav whereabouts) keep only the in-flight and the last RECENTLY_ENDED
 * requests, so a million-request run holds no more than a thousand-request one.
 */
import { describe, expect, it } from 'vitest';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { RECENTLY_ENDED } from '#server/dashboard/hub/runTracker.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { completedRequest, newRun } from '#test/helpers/sampleEvents.ts';

describe('bounded live state', () => {
  it('a 20,000-request run keeps no ended rows and at most RECENTLY_ENDED ids per index', async () => {
    const store = new SqliteStore({ dataDir: null });
    const hub = new Hub(store);
    store.runs.insertRun(newRun('big', { numPrompts: 20_000 }));
    hub.open('big', null);
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      hub.append('big', {
        type: 'telemetry',
        t: i,
        event: {
          v: 1,
          ts: i,
          type: 'c2w.phase',
          workerId: 0,
          opId: i,
          requestIds: [`big-${i}`],
          phase: 'cfm',
          details: {},
        },
      });
      for (const e of completedRequest('big', i, i)) hub.append('big', e);
    }
    const tracker = hub.tracker('big')!;
    expect(tracker.requests.size).toBe(0);
    const internals = tracker as unknown as { lastPhase: Map<string, string>; workerOf: Map<string, number> };
    expect(internals.workerOf.size).toBeLessThanOrEqual(RECENTLY_ENDED);
    expect(internals.lastPhase.size).toBeLessThanOrEqual(RECENTLY_ENDED);
    expect((hub as unknown as { byRequestId: Map<string, string> }).byRequestId.size).toBeLessThanOrEqual(
      RECENTLY_ENDED,
    );
    // The most recent ones are still joined; the store holds every row.
    expect(hub.runOfRequest(`big-${n - 1}`)).toBe('big');
    expect(hub.runOfRequest('big-0')).toBeUndefined();
    store.writer.flush();
    expect((await store.runReads.requests('big', 0, 1)).total).toBe(n);
    hub.close('big');
    expect((hub as unknown as { byRequestId: Map<string, string> }).byRequestId.size).toBe(0);
    store.closeNow();
  });
});
