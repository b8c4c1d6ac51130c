/**
 * The breaker, the latch every stop rule trips (docs/design.md#stop-rules):
 * off without a rule; `timeouts>=N` stops at the Nth timeout (not one
 * earlier), chooses the cause among the timeouts of the tripping phase by
 * lowest index and names every timeout as evidence; another rule's `trip`
 * stops at once and is told one turn later; nothing trips twice.
 */
import { describe, expect, it } from 'vitest';
import { Breaker, type RunTrip } from '#server/engine/stopRules/breaker.ts';
import type { StoppedBy } from '#shared/config/stopRules.ts';

const report = (index: number, elapsedS = 1) => ({ index, requestId: `r-${index}`, kind: 'total' as const, elapsedS });

function breaker(timeouts: { n: number; text: string } | null, trips: RunTrip[]) {
  return new Breaker({
    timeouts,
    onTrip: (t) => trips.push(t),
    atS: () => 1.5,
    lastPhaseOf: (id) => (id === 'r-2' ? 'cfm' : null),
  });
}

describe('Breaker', () => {
  it('without a timeouts rule: a timeout report changes nothing', async () => {
    const trips: RunTrip[] = [];
    const b = breaker(null, trips);
    b.report(report(0));
    await b.settled();
    expect(b.tripped).toBe(false);
    expect(trips).toEqual([]);
  });

  it('timeouts>=1: stops synchronously, trips once, and breaks ties by lowest index', async () => {
    const trips: RunTrip[] = [];
    const b = breaker({ n: 1, text: 'timeouts>=1' }, trips);
    b.report({ ...report(5), kind: 'idle' });
    expect(b.tripped).toBe(true);
    expect(b.stopSignal.aborted).toBe(true);
    b.report(report(2, 1.01));
    await b.settled();
    expect(trips.map((t) => t.cause)).toEqual([
      { requestIndex: 2, requestId: 'r-2', kind: 'total', elapsedS: 1.01, lastPhase: 'cfm' },
    ]);
    expect(trips[0].stoppedBy).toMatchObject({ kind: 'timeouts', rule: 'timeouts>=1', atS: 1.5, value: 2 });
    expect(trips[0].stoppedBy.requests.map((r) => r.index)).toEqual([5, 2]);
    b.report(report(0));
    await new Promise((r) => setImmediate(r));
    expect(trips).toHaveLength(1);
  });

  it('timeouts>=3: the first two timeouts stop nothing, the third trips with all three as evidence', async () => {
    const trips: RunTrip[] = [];
    const b = breaker({ n: 3, text: 'timeouts>=3' }, trips);
    b.report(report(7));
    await new Promise((r) => setImmediate(r));
    b.report(report(4));
    await new Promise((r) => setImmediate(r));
    expect(b.tripped).toBe(false);
    b.report(report(9));
    expect(b.tripped).toBe(true);
    await b.settled();
    expect(trips).toHaveLength(1);
    expect(trips[0].cause?.requestIndex).toBe(9);
    expect(trips[0].stoppedBy).toMatchObject({ rule: 'timeouts>=3', value: 3, omitted: 0 });
    expect(trips[0].stoppedBy.requests.map((r) => r.index)).toEqual([7, 4, 9]);
  });

  it("another rule's trip stops at once with its own reason; onTrip follows one turn later; a later timeout is ignored", async () => {
    const trips: RunTrip[] = [];
    const b = breaker({ n: 1, text: 'timeouts>=1' }, trips);
    const stoppedBy: StoppedBy = { kind: 'errors', rule: 'errors>=3', atS: 2, value: 3, requests: [], omitted: 0 };
    b.trip(stoppedBy);
    expect(b.tripped).toBe(true);
    expect((b.stopSignal.reason as Error).message).toBe('cancelled: the stop rule errors>=3 tripped');
    expect(trips).toEqual([]);
    b.report(report(0));
    b.trip({ ...stoppedBy, rule: 'errors>=9' });
    await b.settled();
    expect(trips).toEqual([{ stoppedBy, cause: null }]);
    expect(b.stoppedBy).toEqual(stoppedBy);
    expect(b.cause).toBeNull();
  });
});
