/**
 * The one counting rule (shared/requests/outcomes.ts) as the engine, the hub and the
 * web state use it: for every order in which the engine can emit a run's
 * events, the counts folded live (before `run.finished`) equal the engine's
 * final counts. The orders generated are a superset of the engine's: each
 * request's own events stay in order, `breaker.tripped` lands anywhere after
 * the cause's timer fired (the engine emits the queue's `not_dispatched`
 * before it, its in-flight cancellations after it), and requests interleave
 * freely.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countStatuses } from '#server/engine/records/counts.ts';
import { RunTracker } from '#server/dashboard/hub/runTracker.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { countOutcomes, REQUEST_END_STATUSES } from '#shared/requests/outcomes.ts';
import type { BenchEvent, RequestOutcome, RunEvent } from '#shared/protocol/protocol.ts';
import type { RequestEndStatus, StopCause } from '#shared/types.ts';

type Fate = 'completed' | 'failed' | 'timed_out' | 'in_flight' | 'queued';

function outcome(index: number, status: RequestEndStatus, stoppedBy: StopCause | null): RequestOutcome {
  const sent = status !== 'not_dispatched';
  return {
    index,
    requestId: `r-${index}`,
    status,
    ttftS: 0,
    e2elS: 0,
    audioTtfpS: 0,
    audioDurationS: 0,
    outputTokens: 0,
    promptLen: 1,
    attempts: sent ? 1 : 0,
    error: '',
    sentT: sent ? 1 : null,
    ...(stoppedBy ? { stoppedBy } : {}),
  };
}

/** A run: each request's fate, and how the run stopped. */
const runArb = fc.record({
  fates: fc.array(fc.constantFrom<Fate>('completed', 'failed', 'timed_out', 'in_flight', 'queued'), {
    minLength: 1,
    maxLength: 12,
  }),
  stop: fc.constantFrom<'breaker' | 'interrupt' | 'none' | 'never_started'>(
    'breaker',
    'interrupt',
    'none',
    'never_started',
  ),
  seed: fc.integer(),
});

interface Built {
  /** Per-request event chains (kept in order) and the breaker event with its earliest position. */
  chains: BenchEvent[][];
  statuses: RequestEndStatus[];
  stoppedBy: (StopCause | null)[];
  trip: BenchEvent | null;
  /** Chains whose end must follow the trip (in-flight cancellations by the breaker). */
  afterTrip: Set<number>;
}

function build(fates: Fate[], stop: 'breaker' | 'interrupt' | 'none' | 'never_started'): Built {
  const chains: BenchEvent[][] = [];
  const statuses: RequestEndStatus[] = [];
  const stoppedBy: (StopCause | null)[] = [];
  const afterTrip = new Set<number>();
  let cause = -1;
  fates.forEach((fate, i) => {
    let status: RequestEndStatus;
    let by: StopCause | null = null;
    if (stop === 'never_started') status = 'not_dispatched';
    else if (fate === 'queued' && stop !== 'none') {
      status = 'not_dispatched';
      by = stop;
    } else if (fate === 'in_flight' && stop !== 'none') {
      status = stop === 'breaker' ? 'cancelled_after_timeout' : 'cancelled';
      by = stop;
      if (stop === 'breaker') afterTrip.add(i);
    } else if (fate === 'timed_out' && stop === 'interrupt') status = 'cancelled';
    else status = fate === 'timed_out' ? 'timed_out' : fate === 'failed' ? 'failed' : 'completed';
    if (status === 'cancelled') by = 'interrupt';
    if (status === 'timed_out' && cause < 0) cause = i;
    statuses.push(status);
    stoppedBy.push(by);
    const t = i;
    const chain: BenchEvent[] = [{ type: 'request.queued', t, index: i, requestId: `r-${i}` }];
    if (status !== 'not_dispatched') chain.push({ type: 'request.sent', t, index: i, requestId: `r-${i}`, attempt: 1 });
    const o = outcome(i, status, by);
    if (status === 'completed') chain.push({ type: 'request.completed', t, outcome: o });
    else if (status === 'failed') chain.push({ type: 'request.failed', t, outcome: o });
    else if (status === 'timed_out') chain.push({ type: 'request.timed_out', t, kind: 'total', outcome: o });
    else if (status === 'not_dispatched') chain.push({ type: 'request.unsent', t, outcome: o });
    else chain.push({ type: 'request.cancelled', t, outcome: o });
    chains.push(chain);
  });
  const trip: BenchEvent | null =
    stop === 'breaker'
      ? {
          type: 'breaker.tripped',
          t: 99,
          cause: { requestIndex: Math.max(cause, 0), requestId: `r-${Math.max(cause, 0)}`, kind: 'total', elapsedS: 1 },
          inFlight: afterTrip.size,
          queued: 0,
        }
      : null;
  return { chains, statuses, stoppedBy, trip, afterTrip };
}

/** A random interleaving that keeps each chain's order and puts breaker cancellations after the trip. */
function interleave(b: Built, seed: number): BenchEvent[] {
  let x = seed >>> 0 || 1;
  const rand = (n: number): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const pos = b.chains.map(() => 0);
  const out: BenchEvent[] = [];
  let tripped = b.trip === null;
  for (;;) {
    const ready: number[] = [];
    b.chains.forEach((c, i) => {
      if (pos[i] >= c.length) return;
      const isEnd = pos[i] === c.length - 1;
      if (isEnd && b.afterTrip.has(i) && !tripped) return;
      ready.push(i);
    });
    const canTrip = !tripped;
    if (ready.length === 0 && !canTrip) break;
    const pick = rand(ready.length + (canTrip ? 1 : 0));
    if (pick === ready.length) {
      out.push(b.trip!);
      tripped = true;
    } else out.push(b.chains[ready[pick]][pos[ready[pick]]++]);
  }
  return out;
}

describe('one counting rule, whatever the event order', () => {
  it('live counts (hub and web) equal the engine final counts for every order the engine can emit', () => {
    fc.assert(
      fc.property(runArb, ({ fates, stop, seed }) => {
        const b = build(fates, stop);
        const final = countStatuses(b.statuses, b.stoppedBy);
        const started: BenchEvent = {
          type: 'run.started',
          t: 0,
          runId: 'r',
          startedAtMs: 0,
          numRequests: fates.length,
          maxConcurrency: null,
          requestRate: 'inf',
          failFast: stop === 'breaker',
          model: 'm',
          baseUrl: 'http://127.0.0.1:1',
        };
        const events: RunEvent[] = [started, ...interleave(b, seed)];
        const hub = new RunTracker('r', null);
        events.forEach((e, i) => hub.apply(i + 1, e));
        const web = applyEvents(
          emptyRun('r'),
          events.map((event, i) => ({ seq: i + 1, event })),
        );
        expect(hub.state.counts).toEqual(final);
        expect(web.counts).toEqual(final);
        // The rule's invariants: failed is everything not completed, split without overlap.
        expect(final.completed + final.failed).toBe(fates.length);
        expect(final.timedOut + final.cancelledAfterTimeout + final.cancelled + final.errored).toBe(final.failed);
      }),
      { numRuns: 400 },
    );
  });

  it('unsent requests are a subset of the cancellation that applied', () => {
    const by = (stoppedBy: StopCause | null) => countOutcomes(1, [{ status: 'not_dispatched', stoppedBy }]);
    expect(by('breaker')).toMatchObject({ failed: 1, unsent: 1, cancelledAfterTimeout: 1, cancelled: 0 });
    expect(by('interrupt')).toMatchObject({ failed: 1, unsent: 1, cancelled: 1, cancelledAfterTimeout: 0 });
    expect(by(null)).toMatchObject({ failed: 1, unsent: 1, errored: 1 });
  });

  it('names every end status once', () => {
    expect(new Set(REQUEST_END_STATUSES).size).toBe(REQUEST_END_STATUSES.length);
    expect(REQUEST_END_STATUSES).toContain('cancelled');
  });
});
