/**
 * The one rule for counting request outcomes (docs/design.md#counting),
 * used by the engine (final counts), the dashboard hub (live counts) and the
 * web state (live counts). Each request's end is classified from its own
 * outcome alone — status, and for an unsent request what stopped it — so
 * the counts do not depend on the order the events arrive in: a
 * `not_dispatched` seen before or after `breaker.tripped` counts the same.
 */
import type { RequestEndStatus, RunCounts, StopCause } from '../types.ts';
import { countsWithNewNames } from '../protocol/legacyNames.ts';

/** The end statuses are listed once, in shared/types.ts; re-exported for the readers of this rule. */
export { REQUEST_END_STATUSES } from '../types.ts';

/** What the rule needs of one ended request. */
export interface EndedRequest {
  status: RequestEndStatus;
  /**
   * For an unsent request: what stopped the run before it was sent
   * (absent or null: the run never started, e.g. its ready check failed).
   */
  stoppedBy?: StopCause | null;
}

export function emptyCounts(total = 0): RunCounts {
  return {
    total,
    completed: 0,
    failed: 0,
    timedOut: 0,
    cancelledAfterTimeout: 0,
    cancelled: 0,
    errored: 0,
    unsent: 0,
  };
}

/** Adds one ended request to `c` (in place). */
export function countEnded(c: RunCounts, r: EndedRequest): void {
  if (r.status === 'completed') {
    c.completed++;
    return;
  }
  c.failed++;
  switch (r.status) {
    case 'timed_out':
      c.timedOut++;
      return;
    case 'cancelled_after_timeout':
      c.cancelledAfterTimeout++;
      return;
    case 'cancelled':
      c.cancelled++;
      return;
    case 'failed':
      c.errored++;
      return;
    case 'not_dispatched':
      c.unsent++;
      if (r.stoppedBy === 'breaker') c.cancelledAfterTimeout++;
      else if (r.stoppedBy === 'interrupt') c.cancelled++;
      else c.errored++;
      return;
  }
}

/**
 * Adds `n` requests that ended alike (the unsent requests of one
 * `requests.unsent` event) to `c`, in place: exactly what `n` calls
 * of countEnded would add, in one step.
 */
export function countEndedMany(c: RunCounts, r: EndedRequest, n: number): void {
  const one = emptyCounts();
  countEnded(one, r);
  for (const k of Object.keys(one) as (keyof RunCounts)[]) if (k !== 'total') c[k] += one[k] * n;
}

/** The requests a `requests.unsent` event ends: how many, and how each counts. */
export function bulkUnsent(e: { from: number; to: number; stoppedBy?: StopCause | null }): {
  n: number;
  ended: EndedRequest;
} {
  return { n: Math.max(0, e.to - e.from), ended: { status: 'not_dispatched', stoppedBy: e.stoppedBy ?? null } };
}

/** Counts of a whole run: `total` requests, of which `ended` have ended. */
export function countOutcomes(total: number, ended: Iterable<EndedRequest>): RunCounts {
  const c = emptyCounts(total);
  for (const r of ended) countEnded(c, r);
  return c;
}

/**
 * Counts read back from an older store or an imported file may lack the
 * fields added later (`cancelled`, `errored`), or name one as older reporters
 * did (shared/protocol/legacyNames.ts): fill and rename them, so every reader
 * sees the same shape.
 */
export function normalizeCounts(stored: Partial<RunCounts> | null | undefined): RunCounts {
  const c = countsWithNewNames(stored);
  const out = { ...emptyCounts(), ...(c ?? {}) };
  if (c && c.errored === undefined) {
    // Before the rule, `failed` held the errors only.
    out.errored = c.failed ?? 0;
    // and `cancelledAfterTimeout` included the unsent requests of a trip.
    out.failed = (c.failed ?? 0) + (c.timedOut ?? 0) + Math.max(c.cancelledAfterTimeout ?? 0, c.unsent ?? 0);
  }
  return out;
}
