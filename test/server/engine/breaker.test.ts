import { describe, expect, it } from 'vitest';
import { Breaker } from '#server/engine/breaker.ts';
import type { BreakerCause } from '#shared/types.ts';

describe('Breaker', () => {
  it('disabled: a timeout report changes nothing', async () => {
    const trips: BreakerCause[] = [];
    const b = new Breaker(false, (c) => trips.push(c));
    b.report({ index: 0, requestId: 'a', kind: 'total', elapsedS: 1 });
    await b.settled();
    expect(b.tripped).toBe(false);
    expect(trips).toEqual([]);
  });

  it('stops synchronously, trips once, and breaks ties by lowest index', async () => {
    const trips: BreakerCause[] = [];
    const b = new Breaker(
      true,
      (c) => trips.push(c),
      (id) => (id === 'r-2' ? 'cfm' : null),
    );
    b.report({ index: 5, requestId: 'r-5', kind: 'idle', elapsedS: 1 });
    expect(b.tripped).toBe(true);
    expect(b.stopSignal.aborted).toBe(true);
    b.report({ index: 2, requestId: 'r-2', kind: 'total', elapsedS: 1.01 });
    await b.settled();
    expect(trips).toEqual([{ requestIndex: 2, requestId: 'r-2', kind: 'total', elapsedS: 1.01, lastPhase: 'cfm' }]);
    b.report({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 3 });
    await new Promise((r) => setImmediate(r));
    expect(trips).toHaveLength(1);
  });
});
