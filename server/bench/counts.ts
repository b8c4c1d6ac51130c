/** Request outcome counts of a run (shared/types.ts RunCounts). */
import type { RequestEndStatus, RunCounts } from '../../shared/types.ts';

/**
 * `failed` counts requests whose own status is `failed` (errors); timeouts,
 * cancellations and undispatched requests have their own counts. When the
 * breaker tripped, every never-sent request was cancelled by it, so
 * `cancelledAfterTimeout` includes them and `notDispatched` is that subset.
 */
export function countStatuses(statuses: readonly RequestEndStatus[], breakerTripped: boolean): RunCounts {
  const c: RunCounts = {
    total: statuses.length,
    completed: 0,
    failed: 0,
    timedOut: 0,
    cancelledAfterTimeout: 0,
    notDispatched: 0,
  };
  for (const s of statuses) {
    switch (s) {
      case 'completed':
        c.completed++;
        break;
      case 'failed':
        c.failed++;
        break;
      case 'timed_out':
        c.timedOut++;
        break;
      case 'cancelled_after_timeout':
        c.cancelledAfterTimeout++;
        break;
      case 'not_dispatched':
        c.notDispatched++;
        if (breakerTripped) c.cancelledAfterTimeout++;
        break;
    }
  }
  return c;
}
