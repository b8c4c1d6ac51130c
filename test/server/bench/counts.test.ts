import { describe, expect, it } from 'vitest';
import { countStatuses } from '../../../server/bench/counts.ts';

describe('countStatuses', () => {
  const statuses = [
    'completed',
    'completed',
    'failed',
    'timed_out',
    'cancelled_after_timeout',
    'not_dispatched',
    'not_dispatched',
  ] as const;
  it('after a trip, never-sent requests count as breaker cancellations too', () => {
    expect(countStatuses(statuses, true)).toEqual({
      total: 7,
      completed: 2,
      failed: 1,
      timedOut: 1,
      cancelledAfterTimeout: 3,
      notDispatched: 2,
    });
  });
  it('without a trip (an interrupt), never-sent requests are only not_dispatched', () => {
    expect(countStatuses(statuses, false)).toEqual({
      total: 7,
      completed: 2,
      failed: 1,
      timedOut: 1,
      cancelledAfterTimeout: 1,
      notDispatched: 2,
    });
  });
});
