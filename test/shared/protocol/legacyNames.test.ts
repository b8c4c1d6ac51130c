/**
 * The names of protocol 3 and before, read under today's (docs/design.md#legacy-names).
 * Caught: a mapping dropped or half-done (an old event refused, an old run's unsent
 * requests counted 0, its tripped breaker read as untripped), or one that touches
 * what is already new (the stored JSON of today's runs must pass unparsed, as is).
 */
import { describe, expect, it } from 'vitest';
import {
  countsWithNewNames,
  eventWithNewNames,
  stateWithNewNames,
  storedEventWithNewNames,
  summaryWithNewNames,
} from '#shared/protocol/legacyNames.ts';
import { normalizeCounts } from '#shared/requests/outcomes.ts';

const outcome = { index: 3, requestId: 'r-3', status: 'not_dispatched', ttftS: 0, e2elS: 0, audioTtfpS: 0 };
const oldCounts = {
  total: 6,
  completed: 2,
  failed: 4,
  timedOut: 1,
  cancelledAfterTimeout: 3,
  cancelled: 0,
  errored: 0,
  notDispatched: 2,
};
const newCounts = { ...oldCounts, notDispatched: undefined, unsent: 2 };
delete newCounts.notDispatched;
const oldSummary = {
  verdict: 'failed_closed',
  verdictReasons: ['1 request timed out'],
  counts: oldCounts,
  durationS: 4,
  failFastTripped: true,
  cause: null,
  metrics: { not_dispatched_requests: 2, fail_fast_tripped: 1 },
};

describe('legacy names', () => {
  it('renames the two unsent events of protocol 3, and nothing else of them', () => {
    const one = { type: 'request.not_dispatched', t: 5, outcome };
    expect(eventWithNewNames(one)).toEqual({ type: 'request.unsent', t: 5, outcome });
    const range = {
      type: 'requests.not_dispatched',
      t: 5,
      from: 2,
      to: 6,
      error: 'not dispatched: x',
      stoppedBy: null,
    };
    expect(eventWithNewNames(range)).toEqual({ ...range, type: 'requests.unsent' });
    // The status and the error text are the result file's words: unchanged.
    expect((eventWithNewNames(one) as typeof one).outcome.status).toBe('not_dispatched');
  });

  it('renames a summary’s counts and failFastTripped, its result keys left as they are', () => {
    const s = summaryWithNewNames(oldSummary as never) as Record<string, unknown>;
    expect(s.breakerTripped).toBe(true);
    expect(s).not.toHaveProperty('failFastTripped');
    expect(s.counts).toEqual(newCounts);
    expect(s.metrics).toEqual(oldSummary.metrics);
    const finished = eventWithNewNames({ type: 'run.finished', t: 9, summary: oldSummary }) as { summary: unknown };
    expect(finished.summary).toEqual(s);
    expect(stateWithNewNames({ runId: 'a', counts: oldCounts } as never)).toEqual({ runId: 'a', counts: newCounts });
    expect(countsWithNewNames(oldCounts as never)).toEqual(newCounts);
  });

  it('hands today’s names back as they are: the same object, the same string', () => {
    const e = { type: 'request.unsent', t: 5, outcome };
    expect(eventWithNewNames(e)).toBe(e);
    const s = { ...oldSummary, counts: newCounts, failFastTripped: undefined, breakerTripped: true };
    delete s.failFastTripped;
    expect(summaryWithNewNames(s as never)).toBe(s);
    for (const odd of [null, 3, 'x', [], { type: 7 }, { type: '__proto__' }, { type: 'constructor' }])
      expect(eventWithNewNames(odd)).toBe(odd);
    const json = JSON.stringify(e);
    expect(storedEventWithNewNames(json)).toBe(json);
  });

  it('renames a stored event’s JSON only when it holds an old name', () => {
    const old = JSON.stringify({ type: 'requests.not_dispatched', t: 1, from: 0, to: 2, error: 'e' });
    expect(JSON.parse(storedEventWithNewNames(old))).toEqual({
      type: 'requests.unsent',
      t: 1,
      from: 0,
      to: 2,
      error: 'e',
    });
    const finished = JSON.stringify({ type: 'run.finished', t: 9, summary: oldSummary });
    expect(JSON.parse(storedEventWithNewNames(finished)).summary).toMatchObject({
      breakerTripped: true,
      counts: newCounts,
    });
  });

  it('counts stored before `errored` existed, under the old name, still add up', () => {
    // Before the counting rule: `failed` held errors only, the unsent ones were inside cancelledAfterTimeout.
    const c = normalizeCounts({
      total: 10,
      completed: 5,
      failed: 1,
      timedOut: 1,
      cancelledAfterTimeout: 3,
      notDispatched: 3,
    } as never);
    expect(c).toMatchObject({ unsent: 3, errored: 1, failed: 5 });
    expect(c).not.toHaveProperty('notDispatched');
  });
});
