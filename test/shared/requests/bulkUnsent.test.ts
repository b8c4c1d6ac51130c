/**
 * `requests.unsent` (one event for the unsent tail of a
 * stopped run) counts, in every reader, exactly as the one
 * `request.unsent` per request it replaces counted: the counting
 * rule (shared/requests/outcomes.ts), the dashboard hub's tracker, the web reducer
 * (its rows as shown too) — whatever stopped the run; and the web reducer
 * keeps the range as one record, writing no row of it.
 */
import { describe, expect, it } from 'vitest';
import { RunTracker } from '#server/dashboard/hub/runTracker.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { shownRow } from '#shared/runView/unsentRows.ts';
import { bulkUnsent, countEndedMany, countOutcomes, emptyCounts } from '#shared/requests/outcomes.ts';
import { unsentOutcome } from '#shared/requests/requestLifecycle.ts';
import type { RequestsUnsent, RunEvent } from '#shared/protocol/protocol.ts';
import type { StopCause } from '#shared/types.ts';

const N = 40;
const FROM = 15;
const started: RunEvent = {
  type: 'run.started',
  t: 0,
  runId: 'r',
  startedAtMs: 0,
  numRequests: N,
  maxConcurrency: 5,
  requestRate: 'inf',
  failFast: true,
  model: 'm',
  baseUrl: 'http://127.0.0.1:1',
};

/** A run: every request queued, the first FROM completed, then the stop; the tail unsent. */
function run(tail: (bulk: RequestsUnsent) => RunEvent[], stoppedBy: StopCause | null): RunEvent[] {
  const events: RunEvent[] = [started];
  for (let i = 0; i < N; i++) events.push({ type: 'request.queued', t: 1, index: i, requestId: `r-${i}` });
  for (let i = 0; i < FROM; i++) {
    events.push({ type: 'request.sent', t: 2, index: i, requestId: `r-${i}`, attempt: 1 });
    const o = { ...unsentOutcome({ ...bulk(stoppedBy), error: '' }, i, `r-${i}`), status: 'completed' as const };
    delete o.stoppedBy;
    events.push({ type: 'request.completed', t: 3, outcome: { ...o, attempts: 1, sentT: 2 } });
  }
  return [...events, ...tail(bulk(stoppedBy))];
}

function bulk(stoppedBy: StopCause | null): RequestsUnsent {
  const e: RequestsUnsent = {
    type: 'requests.unsent',
    t: 4,
    from: FROM,
    to: N,
    error: 'not dispatched: x',
  };
  if (stoppedBy) e.stoppedBy = stoppedBy;
  return e;
}

/** The old path: one event per unsent request, with the outcome the range stands for. */
const perRequest = (b: RequestsUnsent): RunEvent[] =>
  Array.from({ length: b.to - b.from }, (_, k) => ({
    type: 'request.unsent' as const,
    t: b.t,
    outcome: unsentOutcome(b, b.from + k, `r-${b.from + k}`),
  }));

const hubCounts = (events: RunEvent[]) => {
  const hub = new RunTracker('r', null);
  events.forEach((e, i) => hub.apply(i + 1, e));
  return { counts: hub.state.counts, inFlight: hub.state.inFlight };
};
const web = (events: RunEvent[]) =>
  applyEvents(
    emptyRun('r'),
    events.map((event, i) => ({ seq: i + 1, event })),
  );

describe('one bulk unsent event counts as the per-request events it replaces', () => {
  for (const stoppedBy of ['breaker', 'interrupt', null] as const) {
    it(`stopped by ${stoppedBy ?? 'nothing (the run never started)'}`, () => {
      const b = bulk(stoppedBy);
      // The rule itself.
      const many = emptyCounts();
      countEndedMany(many, bulkUnsent(b).ended, bulkUnsent(b).n);
      const one = countOutcomes(
        0,
        perRequest(b).map((e) => (e as { outcome: { status: 'not_dispatched' } }).outcome),
      );
      expect(many).toEqual(one);
      expect(many.unsent).toBe(N - FROM);

      const old = run(perRequest, stoppedBy);
      const now = run((x) => [x], stoppedBy);
      expect(hubCounts(now)).toEqual(hubCounts(old));
      expect(hubCounts(now).counts).toMatchObject({ completed: FROM, unsent: N - FROM, failed: N - FROM });
      const w0 = web(old);
      const w1 = web(now);
      expect(w1.counts).toEqual(w0.counts);
      expect(w1.inFlight).toBe(w0.inFlight);
      const shown = w1.requests.map((r) => shownRow(w1, r));
      expect(shown).toEqual(w0.requests);
      expect(shown[N - 1]).toMatchObject({ status: 'not_dispatched', requestId: `r-${N - 1}`, queuedT: 1, endT: 4 });
      expect(shown[N - 1].outcome?.error).toBe('not dispatched: x');
      expect(shown[N - 1].outcome?.stoppedBy).toBe(stoppedBy ?? undefined);
    });
  }

  it('a late event of a request in the range changes nothing (it had ended)', () => {
    const events = run((x) => [x], 'breaker');
    const before = hubCounts(events);
    const late: RunEvent = { type: 'request.sent', t: 9, index: N - 1, requestId: `r-${N - 1}`, attempt: 1 };
    expect(hubCounts([...events, late])).toEqual(before);
  });

  it('the web reducer keeps the range as one record: no row of it is copied or written, whatever its size', () => {
    const events = run(() => [], 'breaker');
    const before = web(events);
    const b = { ...bulk('breaker'), to: N };
    const after = applyEvents(before, [{ seq: events.length + 1, event: b }]);
    expect(after.requests).toBe(before.requests); // the same array: O(1), not O(range)
    expect(after.unsent).toEqual([b]);
    expect(after.counts.unsent).toBe(N - FROM);
    // Shown rows are built when asked for, once each (memoised rows keep their identity).
    expect(shownRow(after, after.requests[FROM])).toBe(shownRow(after, after.requests[FROM]));
    expect(shownRow(after, after.requests[FROM - 1])).toBe(after.requests[FROM - 1]); // outside the range
  });

  it('web: a late event of a range request is ignored; a request in flight inside a range ends with it', () => {
    const events = run((x) => [x], 'breaker');
    const late: RunEvent = { type: 'request.sent', t: 9, index: N - 1, requestId: `r-${N - 1}`, attempt: 1 };
    const w = web([...events, late]);
    expect(w.inFlight).toBe(0);
    expect(shownRow(w, w.requests[N - 1]).status).toBe('not_dispatched');
    // A reporter that sent request FROM + 1 before stopping from FROM (the engine never does).
    const sent: RunEvent = { type: 'request.sent', t: 3, index: FROM + 1, requestId: `r-${FROM + 1}`, attempt: 1 };
    const withSent = run((x) => [sent, x], 'breaker');
    const w2 = web(withSent);
    expect(w2.inFlight).toBe(0);
    expect(w2.requests[FROM + 1]).toMatchObject({ status: 'not_dispatched', sentT: 3, endT: 4 });
    expect(hubCounts(withSent).inFlight).toBe(0);
  });
});
