/**
 * The stop rules read at each request's end (docs/design.md#stop-rules):
 * `errors>=N`, `consecutive_errors>=N` and `error_rate>X[,window=W][,min=M]`.
 * A request counts as an error when it ended `failed` or `timed_out`;
 * cancellations and unsent requests are the stop's doing, not the
 * target's, and are never counted. Evaluated synchronously in the request's
 * end, before its slot is released, so no request is sent after the one
 * whose end trips a rule.
 */
import type { StopRule, StoppedBy } from '../../../shared/config/stopRules.ts';
import { Evidence } from './evidence.ts';

type CountRule = Extract<StopRule, { n: number }> & { kind: 'errors' | 'consecutive_errors' };
type RateRule = Extract<StopRule, { kind: 'error_rate' }>;
type EndRule = CountRule | RateRule;
/** A rule's trip before it is stamped with its time: what it measured and on which requests. */
export type RuleTrip = Omit<StoppedBy, 'atS'>;

interface Counter {
  /** One ended request (failed: it counts as an error); returns the trip, or null. */
  ended(index: number, failed: boolean): RuleTrip | null;
}

export function isEndRule(r: StopRule): r is EndRule {
  return r.kind === 'errors' || r.kind === 'consecutive_errors' || r.kind === 'error_rate';
}

export function endRuleCounter(r: EndRule, requestId: (index: number) => string): Counter {
  switch (r.kind) {
    case 'errors':
      return errorsCounter(r, requestId);
    case 'consecutive_errors':
      return consecutiveCounter(r, requestId);
    case 'error_rate':
      return r.window === null ? runRateCounter(r, requestId) : windowRateCounter(r, r.window, requestId);
  }
}

function errorsCounter(r: CountRule, requestId: (index: number) => string): Counter {
  const failed = new Evidence();
  return {
    ended(index, isError) {
      if (!isError) return null;
      failed.add(index);
      if (failed.size < r.n) return null;
      return { kind: r.kind, rule: r.text, value: failed.size, ...failed.named(requestId) };
    },
  };
}

function consecutiveCounter(r: CountRule, requestId: (index: number) => string): Counter {
  const streak = new Evidence();
  return {
    ended(index, isError) {
      if (!isError) {
        streak.clear();
        return null;
      }
      streak.add(index);
      if (streak.size < r.n) return null;
      return { kind: r.kind, rule: r.text, value: streak.size, ...streak.named(requestId) };
    },
  };
}

const exceeds = (r: RateRule, rate: number): boolean => (r.op === '>' ? rate > r.rate : rate >= r.rate);

/** The rate over every ended request of the run, once `min` have ended. */
function runRateCounter(r: RateRule, requestId: (index: number) => string): Counter {
  const failed = new Evidence();
  let ended = 0;
  return {
    ended(index, isError) {
      ended++;
      if (isError) failed.add(index);
      if (ended < r.min) return null;
      const rate = failed.size / ended;
      if (!exceeds(r, rate)) return null;
      return { kind: 'error_rate', rule: r.text, value: rate, over: ended, ...failed.named(requestId) };
    },
  };
}

/** The rate over the last `window` ended requests (a ring of their indices and outcomes), once `min` have ended. */
function windowRateCounter(r: RateRule, window: number, requestId: (index: number) => string): Counter {
  const indices = new Int32Array(window);
  const errors = new Uint8Array(window);
  let ended = 0;
  let inWindow = 0;
  return {
    ended(index, isError) {
      const slot = ended++ % window;
      inWindow += (isError ? 1 : 0) - errors[slot];
      errors[slot] = isError ? 1 : 0;
      indices[slot] = index;
      if (ended < r.min) return null;
      const over = Math.min(ended, window);
      const rate = inWindow / over;
      if (!exceeds(r, rate)) return null;
      const failed = new Evidence();
      for (let k = ended - over; k < ended; k++) if (errors[k % window]) failed.add(indices[k % window]);
      return { kind: 'error_rate', rule: r.text, value: rate, over, ...failed.named(requestId) };
    },
  };
}
