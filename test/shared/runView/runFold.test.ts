import { describe, expect, it } from 'vitest';
import { foldRun, type RunLevel, type RunLevelEvent } from '#shared/runView/runFold.ts';
import type { RunSummary } from '#shared/protocol/protocol.ts';
import type { StoppedBy } from '#shared/config/stopRules.ts';
import { emptyCounts } from '#shared/requests/outcomes.ts';
import { deepFreeze } from '#test/helpers/failFastRun.ts';

const start = (): RunLevel => ({
  status: 'running',
  startedAtMs: null,
  counts: emptyCounts(),
  breaker: { tripped: false, cause: null },
  verdict: null,
});
const fold = (events: RunLevelEvent[], s = start()) => events.reduce((a, e) => foldRun(a, e), s);

const cause = { requestIndex: 2, requestId: 'r-2', kind: 'total' as const, elapsedS: 4 };
const rule: StoppedBy = { kind: 'errors', rule: 'errors>=1', atS: 1, value: 1, requests: [], omitted: 0 };
const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  verdict: 'failed_closed',
  verdictReasons: [],
  counts: { ...emptyCounts(3), completed: 1, failed: 2, timedOut: 1, cancelledAfterTimeout: 1 },
  durationS: 1,
  breakerTripped: true,
  cause,
  stoppedBy: { ...rule, kind: 'timeouts', rule: 'timeouts>=1' },
  metrics: {},
  ...over,
});

describe('the run fold', () => {
  it('keeps the live cause with the phase the dashboard named; the summary fills in only what the stream lacked', () => {
    const live = fold([
      { type: 'breaker.tripped', t: 5, cause: { ...cause, lastPhase: 'hift' }, inFlight: 1, queued: 0 },
      { type: 'run.finished', t: 9, summary: summary() },
    ]);
    expect(live.breaker.cause).toEqual({ ...cause, lastPhase: 'hift' });
    expect(live.breaker.stoppedBy).toMatchObject({ kind: 'timeouts' });
    // The live run.stopped was dropped by the reporter: the summary's rule and cause.
    const dropped = fold([{ type: 'run.finished', t: 9, summary: summary() }]);
    expect(dropped.breaker).toEqual({
      tripped: true,
      cause: { ...cause, lastPhase: null },
      stoppedBy: summary().stoppedBy,
    });
  });

  it('the breaker is a latch: a summary that says it did not trip does not untrip it', () => {
    const s = fold([
      { type: 'run.stopped', t: 5, stoppedBy: rule, inFlight: 0, queued: 0 },
      { type: 'run.finished', t: 9, summary: summary({ breakerTripped: false, cause: null, stoppedBy: null }) },
    ]);
    expect(s.breaker).toEqual({ tripped: true, cause: null, stoppedBy: rule });
  });

  it("the status is the dashboard's: run.finished sets the verdict and the engine's counts, not the status", () => {
    const s = fold([{ type: 'run.finished', t: 9, summary: summary({ verdict: 'interrupted' }) }]);
    expect(s).toMatchObject({ status: 'running', verdict: 'interrupted', counts: summary().counts });
    expect(fold([{ type: 'run.status', t: 10, status: 'interrupted', interruptCause: 'signal' }], s)).toMatchObject({
      status: 'interrupted',
      verdict: 'interrupted',
      interruptCause: 'signal',
    });
  });

  it('a run ended interrupted or errored without a verdict has that verdict; one with a verdict keeps it', () => {
    expect(fold([{ type: 'run.status', t: 1, status: 'interrupted', interruptCause: 'dashboard' }])).toMatchObject({
      verdict: 'interrupted',
      interruptCause: 'dashboard',
    });
    expect(fold([{ type: 'run.status', t: 1, status: 'errored' }]).verdict).toBe('errored');
    expect(fold([{ type: 'run.status', t: 1, status: 'errored' }], { ...start(), verdict: 'failed' }).verdict).toBe(
      'failed',
    );
  });

  it('run.started turns an unknown status into running and sets the total; the input is never written', () => {
    const before = deepFreeze({ ...start(), status: 'unknown' as const });
    const s = foldRun(before, {
      type: 'run.started',
      t: 0,
      runId: 'r',
      startedAtMs: 1000,
      numRequests: 3,
      maxConcurrency: null,
      requestRate: 'inf',
      failFast: true,
      model: 'm',
      baseUrl: 'http://x',
    });
    expect(s).toMatchObject({ status: 'running', startedAtMs: 1000, counts: { total: 3 } });
    expect(before.counts.total).toBe(0);
  });
});
