import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type RunState } from '#shared/protocol/protocol.ts';
import { createRunStore } from '#web/state/runStore.ts';
import { emptyCounts } from '#shared/requests/outcomes.ts';
import { failFastRun, numbered } from '#test/helpers/failFastRun.ts';

const all = numbered(failFastRun());

/** An active run's light state as the snapshot carries it, before any delta. */
const lightRun = (): RunState => ({
  runId: 'run1',
  status: 'running',
  seq: 0,
  startedAtMs: null,
  label: null,
  counts: emptyCounts(4),
  inFlight: 0,
  breaker: { tripped: false, cause: null },
  verdict: null,
});

describe('app store', () => {
  it('takes a snapshot, then keeps the active run current from deltas', () => {
    const store = createRunStore();
    const seen: number[] = [];
    store.subscribe(() => seen.push(store.getSnapshot().active.run1?.seq ?? -1));
    store.dispatch({ type: 'server', msg: { type: 'hello', v: PROTOCOL_VERSION } });
    store.dispatch({
      type: 'server',
      msg: {
        type: 'snapshot',
        runs: [lightRun()],
      },
    });
    store.dispatch({ type: 'server', msg: { type: 'deltas', runId: 'run1', events: all.slice(0, 20) } });
    store.dispatch({ type: 'server', msg: { type: 'deltas', runId: 'run1', events: all.slice(20) } });
    const s = store.getSnapshot();
    expect(s.serverVersion).toBe(PROTOCOL_VERSION);
    expect(s.active.run1).toMatchObject({
      seq: all.length,
      status: 'finished',
      verdict: 'failed_closed',
      breaker: { tripped: true },
    });
    expect(s.runs.run1.requests).toHaveLength(4);
    expect(seen.at(-1)).toBe(all.length);
  });

  it("keeps who interrupted a run (a run marked abandoned) in the active run's light state", () => {
    const store = createRunStore();
    store.dispatch({ type: 'server', msg: { type: 'snapshot', runs: [lightRun()] } });
    const started = all.slice(0, 3);
    const abandoned = {
      seq: started.length + 1,
      event: {
        type: 'run.status' as const,
        t: 5,
        status: 'interrupted' as const,
        interruptCause: 'dashboard' as const,
      },
    };
    store.dispatch({ type: 'server', msg: { type: 'deltas', runId: 'run1', events: [...started, abandoned] } });
    expect(store.getSnapshot().active.run1).toMatchObject({ status: 'interrupted', interruptCause: 'dashboard' });
  });

  it('does not notify for duplicate deltas, counts resyncs, and forgets removed runs', () => {
    const store = createRunStore();
    store.dispatch({ type: 'history', runId: 'run1', events: all });
    let calls = 0;
    store.subscribe(() => calls++);
    store.dispatch({ type: 'server', msg: { type: 'deltas', runId: 'run1', events: all.slice(3, 9) } });
    expect(calls).toBe(0);
    store.dispatch({ type: 'server', msg: { type: 'resync', reason: 'slow client' } });
    expect(store.getSnapshot().resyncs).toBe(1);
    store.dispatch({ type: 'server', msg: { type: 'run.removed', runId: 'run1' } });
    expect(store.getSnapshot().runs.run1).toBeUndefined();
  });

  it('goes live, reconnecting and offline', () => {
    const store = createRunStore();
    expect(store.getSnapshot().connection).toBe('connecting');
    store.dispatch({ type: 'connection', state: 'reconnecting', attempt: 3 });
    expect(store.getSnapshot()).toMatchObject({ connection: 'reconnecting', reconnectAttempt: 3 });
    store.dispatch({ type: 'connection', state: 'live' });
    expect(store.getSnapshot()).toMatchObject({ connection: 'live', reconnectAttempt: 0 });
  });
});

describe('stored request rows', () => {
  it('fill a run that has no events, and never override an event stream', async () => {
    const { rowFromApi } = await import('#shared/runView/storedRows.ts');
    const api = {
      index: 0,
      requestId: 'x-0',
      status: 'completed',
      queuedT: 0,
      sentT: 1,
      firstTokenT: 20,
      firstAudioT: 30,
      endT: 90,
      ttftS: 0.019,
      e2elS: 0.089,
      audioTtfpS: 0.029,
      audioDurationS: 1,
      outputTokens: 8,
      promptLen: 4,
      attempts: 1,
      error: '',
      timeoutKind: null,
    };
    const row = rowFromApi(api);
    expect(row).toMatchObject({ status: 'completed', endT: 90, outcome: { ttftS: 0.019, status: 'completed' } });
    expect(rowFromApi({ ...api, status: 'streaming', endT: null }).outcome).toBeNull();

    const store = createRunStore();
    store.dispatch({ type: 'rows', runId: 'imp', rows: [row] });
    expect(store.getSnapshot().runs.imp).toMatchObject({ lastT: 90, indexById: { 'x-0': 0 } });
    store.dispatch({ type: 'history', runId: 'run1', events: all });
    const before = store.getSnapshot();
    store.dispatch({ type: 'rows', runId: 'run1', rows: [row] });
    expect(store.getSnapshot()).toBe(before);
  });
});
