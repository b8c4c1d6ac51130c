import { describe, expect, it } from 'vitest';
import { countStatuses } from '#server/engine/records/counts.ts';

describe('countStatuses (the shared rule over a run)', () => {
  const statuses = [
    'completed',
    'completed',
    'failed',
    'timed_out',
    'cancelled_after_timeout',
    'not_dispatched',
    'not_dispatched',
  ] as const;
  it('after a trip, unsent requests count as breaker cancellations too', () => {
    const by = [null, null, null, null, 'breaker', 'breaker', 'breaker'] as const;
    expect(countStatuses(statuses, by)).toEqual({
      total: 7,
      completed: 2,
      failed: 5,
      timedOut: 1,
      cancelledAfterTimeout: 3,
      cancelled: 0,
      errored: 1,
      unsent: 2,
    });
  });
  it('after an interrupt without a trip, unsent requests count as interrupt cancellations', () => {
    const st = ['completed', 'cancelled', 'not_dispatched', 'not_dispatched'] as const;
    const by = [null, 'interrupt', 'interrupt', 'interrupt'] as const;
    expect(countStatuses(st, by)).toEqual({
      total: 4,
      completed: 1,
      failed: 3,
      timedOut: 0,
      cancelledAfterTimeout: 0,
      cancelled: 3,
      errored: 0,
      unsent: 2,
    });
  });
  it('a run that never started: unsent requests are errors, not cancellations', () => {
    expect(countStatuses(['not_dispatched', 'not_dispatched'], [null, null])).toMatchObject({
      failed: 2,
      errored: 2,
      unsent: 2,
      cancelled: 0,
      cancelledAfterTimeout: 0,
    });
  });
});
