/**
 * The one fold of a run's run-level events (`run.started`, `breaker.tripped`,
 * `run.stopped`, `run.finished`, `run.status`) into the run-level state that
 * both the dashboard hub (`RunTracker`, the snapshot's `RunState`) and the
 * browser (`applyEvent.ts`, the `RunModel`) keep: status, start, counts at the
 * start and the end, the breaker, the verdict, who interrupted the run.
 * Requests are folded by the request fold (shared/requests/requestLifecycle.ts);
 * what only the browser shows (the run's configuration, the summary, the
 * accuracy gate's progress, when the breaker tripped) stays in applyEvent.ts,
 * so the hub keeps no more than this.
 *
 * Pure: `foldRun(s, e)` returns a shallow copy of `s` with the run-level
 * fields changed; nested objects are replaced, never written, so the
 * browser's copy-on-write model stays untouched. The merge rules
 * (docs/design.md#live-run-state):
 * - the breaker is a latch: once tripped by any event it stays tripped;
 * - what the live stream said of the trip (`breaker.tripped`'s cause, with
 *   the phase the dashboard named; `run.stopped`'s rule) is kept, and
 *   `run.finished`'s summary only fills in what the stream lacked (a
 *   reporter with a full queue drops spans of it);
 * - the status is the dashboard's (`run.status`); `run.started` only turns an
 *   unknown status into `running` — `run.finished` is the engine's and sets
 *   the verdict and the counts, not the status;
 * - a run that ends interrupted or errored without a verdict has that verdict.
 */
import type { BreakerTripped, RunFinished, RunStarted, RunStatusChanged, RunStopped } from '../protocol/protocol.ts';
import type { StoppedBy } from '../config/stopRules.ts';
import type { BreakerCause, InterruptCause, RunCounts, RunStatus, Verdict } from '../types.ts';
import { normalizeCounts } from '../requests/outcomes.ts';

/** The breaker: tripped by any stop rule; `cause` the timeout of a timeouts rule, `stoppedBy` the rule. */
export interface RunBreaker {
  tripped: boolean;
  cause: BreakerCause | null;
  stoppedBy?: StoppedBy | null;
}

/** The run-level state the hub and the browser both keep (each inside a larger state). */
export interface RunLevel {
  /** `unknown`: the browser has seen no event of the run yet (the hub knows a run from its creation). */
  status: RunStatus | 'unknown';
  startedAtMs: number | null;
  counts: RunCounts;
  breaker: RunBreaker;
  verdict: Verdict | null;
  /** Who interrupted the run, when the dashboard ended it interrupted and knows. */
  interruptCause?: InterruptCause;
}

export type RunLevelEvent = RunStarted | BreakerTripped | RunStopped | RunFinished | RunStatusChanged;

/** A cause as the state keeps it: `lastPhase` null when no telemetry named the request's phase. */
function keptCause(c: BreakerCause): BreakerCause {
  return { ...c, lastPhase: c.lastPhase ?? null };
}

/** Folds one run-level event into `s`; returns the new state (a shallow copy), `s` untouched. */
export function foldRun<S extends RunLevel>(s: S, e: RunLevelEvent): S {
  switch (e.type) {
    case 'run.started':
      return {
        ...s,
        status: s.status === 'unknown' ? 'running' : s.status,
        startedAtMs: e.startedAtMs,
        counts: { ...s.counts, total: e.numRequests },
      };
    case 'breaker.tripped':
      return { ...s, breaker: { ...s.breaker, tripped: true, cause: keptCause(e.cause) } };
    case 'run.stopped':
      // Any stop rule trips the breaker; a timeouts rule's cause came with breaker.tripped just before.
      return { ...s, breaker: { ...s.breaker, tripped: true, stoppedBy: e.stoppedBy } };
    case 'run.finished': {
      const { summary } = e;
      const cause = s.breaker.cause ?? summary.cause;
      return {
        ...s,
        verdict: summary.verdict,
        // The engine's counts are authoritative once the run is over.
        counts: normalizeCounts(summary.counts),
        breaker: {
          ...s.breaker,
          tripped: s.breaker.tripped || summary.breakerTripped,
          cause: cause ? keptCause(cause) : null,
          stoppedBy: s.breaker.stoppedBy ?? summary.stoppedBy ?? null,
        },
      };
    }
    case 'run.status': {
      const ended = e.status === 'interrupted' || e.status === 'errored';
      return {
        ...s,
        status: e.status,
        ...(e.interruptCause ? { interruptCause: e.interruptCause } : {}),
        ...(ended && !s.verdict ? { verdict: e.status } : {}),
      };
    }
  }
}
