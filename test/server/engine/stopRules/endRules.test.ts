/**
 * The end rules' counters on their own (server/engine/stopRules/endRules.ts):
 * evidence keeps the last 64 requests and counts the rest, a windowed rate
 * forgets what left its window, a streak restarts at a success.
 */
import { describe, expect, it } from 'vitest';
import { endRuleCounter } from '#server/engine/stopRules/endRules.ts';
import type { RuleTrip } from '#server/engine/stopRules/endRules.ts';
import { parseStopRule, type StopRule } from '#shared/config/stopRules.ts';

const id = (i: number) => `r-${i}`;
const counter = (text: string) =>
  endRuleCounter(
    parseStopRule(text) as Extract<StopRule, { kind: 'errors' | 'consecutive_errors' | 'error_rate' }>,
    id,
  );

/** Feeds outcomes (true: an error) in order; returns the index of the trip and the trip. */
function feed(text: string, outcomes: boolean[]): { at: number; trip: RuleTrip | null } {
  const c = counter(text);
  for (let i = 0; i < outcomes.length; i++) {
    const trip = c.ended(i, outcomes[i]);
    if (trip) return { at: i, trip };
  }
  return { at: -1, trip: null };
}

describe('end rules', () => {
  it('errors>=100: the evidence is the last 64 errors, the 36 before them counted', () => {
    const { at, trip } = feed(
      'errors>=100',
      Array.from({ length: 200 }, () => true),
    );
    expect(at).toBe(99);
    expect(trip).toMatchObject({ value: 100, omitted: 36 });
    expect(trip!.requests.map((r) => r.index)).toEqual(Array.from({ length: 64 }, (_, k) => 36 + k));
    expect(trip!.requests[0].requestId).toBe('r-36');
  });

  it('consecutive_errors>=3: a success restarts the streak', () => {
    const { at, trip } = feed('consecutive_errors>=3', [true, true, false, true, true, false, true, true, true]);
    expect(at).toBe(8);
    expect(trip!.requests.map((r) => r.index)).toEqual([6, 7, 8]);
  });

  it('error_rate over a window forgets what left it', () => {
    // 4 errors first, then successes: window 4 over the last 4 ended; min 6 waits for 6 ends.
    const early = [true, true, true, true, false, false, false, false];
    expect(feed('error_rate>0.5,window=4,min=6', early).trip).toBeNull(); // by the 6th end the window holds 2 of 4
    const { at, trip } = feed('error_rate>=0.5,window=4,min=6', early);
    expect(at).toBe(5);
    expect(trip).toMatchObject({ value: 0.5, over: 4 });
    expect(trip!.requests.map((r) => r.index)).toEqual([2, 3]);
  });

  it('error_rate over the whole run, once min have ended', () => {
    const { at, trip } = feed('error_rate>0.25,min=8', [false, true, false, false, false, false, false, true, true]);
    expect(at).toBe(8); // at the 8th end 2/8 = 0.25 is not above; at the 9th 3/9 is
    expect(trip).toMatchObject({ over: 9 });
    expect(trip!.requests.map((r) => r.index)).toEqual([1, 7, 8]);
  });
});
