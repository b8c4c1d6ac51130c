/**
 * The `no_progress` clock on its own (server/engine/stopRules/noProgress.ts),
 * on real timers of tens of milliseconds: it never trips while nothing is in
 * flight, a byte restarts the silence, and a stopped clock leaves no timer.
 */
import { describe, expect, it } from 'vitest';
import { NoProgressClock } from '#server/engine/stopRules/noProgress.ts';
import type { RuleTrip } from '#server/engine/stopRules/endRules.ts';

const id = (i: number) => `r-${i}`;

describe('no_progress clock', () => {
  const rule = { text: 'no_progress>=0.05s', seconds: 0.05 };
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('never trips while nothing is in flight, and trips once requests are in flight and silent', async () => {
    const inFlight = new Map<number, true>();
    const trips: RuleTrip[] = [];
    const clock = new NoProgressClock(rule, inFlight, id, (t) => trips.push(t));
    clock.progress(); // a request ended: nothing in flight, nothing armed
    await wait(120);
    expect(trips).toEqual([]);
    inFlight.set(4, true);
    clock.progress(); // sent
    await wait(30);
    clock.progress(); // a byte: the silence starts again
    await wait(30);
    expect(trips).toEqual([]);
    await wait(60);
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({ kind: 'no_progress', rule: 'no_progress>=0.05s', omitted: 0 });
    expect(trips[0].value).toBeGreaterThanOrEqual(0.05);
    expect(trips[0].requests).toEqual([{ index: 4, requestId: 'r-4' }]);
    clock.stop();
  });

  it('stopped, it leaves no timer behind and never trips', async () => {
    const trips: RuleTrip[] = [];
    const clock = new NoProgressClock(rule, new Map([[1, true]]), id, (t) => trips.push(t));
    clock.progress();
    clock.stop();
    await wait(100);
    expect(trips).toEqual([]);
  });
});
