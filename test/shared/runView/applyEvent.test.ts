import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { deepFreeze, failFastRun, numbered } from '#test/helpers/failFastRun.ts';

const all = numbered(failFastRun());
const inOrder = () => applyEvents(emptyRun('run1'), all);

describe('applyEvents', () => {
  it('builds rows, counts, breaker, stall and verdict from a fail-fast stream', () => {
    const m = inOrder();
    expect(m.seq).toBe(all.length);
    expect(m.status).toBe('finished');
    expect(m.verdict).toBe('failed_closed');
    expect(m.requests.map((r) => r.status)).toEqual([
      'completed',
      'timed_out',
      'cancelled_after_timeout',
      'not_dispatched',
    ]);
    expect(m.counts).toEqual({
      total: 4,
      completed: 1,
      failed: 3,
      timedOut: 1,
      cancelledAfterTimeout: 2,
      cancelled: 0,
      errored: 0,
      unsent: 1,
    });
    expect(m.inFlight).toBe(0);
    expect(m.breaker).toMatchObject({ tripped: true, t: 1001, cause: { requestIndex: 1, lastPhase: 'hift' } });
    expect(m.requests[1].timeoutKind).toBe('total');
    expect(m.requests[0]).toMatchObject({ queuedT: 0, sentT: 1, firstTokenT: 50, firstAudioT: 75, endT: 100 });
    expect(m.requests[3].sentT).toBeNull();
  });

  it('joins Code2Wav ops to requests by x-request-id and merges steps of one phase', () => {
    const m = inOrder();
    expect(m.opsByRequest['r-1']).toEqual(['0:1', '0:2']);
    expect(m.opsByRequest['r-0']).toEqual(['0:1']);
    const op1 = m.ops['0:1'];
    expect(op1.phases.map((p) => p.phase)).toEqual(['setup', 'cfm']);
    expect(op1.phases[1]).toMatchObject({ t: 62, details: { step: 2 } });
    expect(op1).toMatchObject({ beginT: 60, endT: 70, ok: true, stalled: false });
    expect(m.ops['0:2']).toMatchObject({ endT: null, stalled: true });
    expect(m.stalls).toHaveLength(1);
    expect(m.stalls[0]).toMatchObject({ t: 400, recovered: null, report: { phase: 'hift' } });
  });

  it('tracks in-flight requests while running', () => {
    const m = applyEvents(emptyRun('run1'), all.slice(0, 9));
    expect(m.inFlight).toBe(2);
    expect(m.requests[0].status).toBe('streaming');
    expect(m.requests[1].status).toBe('sent');
  });

  it('never mutates its input', () => {
    const half = deepFreeze(applyEvents(emptyRun('run1'), all.slice(0, 12)));
    expect(() => applyEvents(half, all.slice(12))).not.toThrow();
    expect(half.seq).toBe(12);
  });

  it('drops duplicates and buffers events past a gap until it is filled', () => {
    const m1 = applyEvents(emptyRun('run1'), all.slice(0, 5));
    const m2 = applyEvents(m1, all.slice(7, 10)); // 8..10 arrive before 6..7
    expect(m2.seq).toBe(5);
    expect(Object.keys(m2.pending)).toHaveLength(3);
    const m3 = applyEvents(m2, all.slice(3, 7)); // 4,5 duplicates; 6,7 fill the gap
    expect(m3.seq).toBe(10);
    expect(Object.keys(m3.pending)).toHaveLength(0);
    expect(applyEvents(m3, all.slice(0, 10))).toBe(m3); // pure replay of known events: same object
  });

  it('after a reconnect, a replay overlapping what was seen gives no duplicated rows or counts', () => {
    const before = applyEvents(emptyRun('run1'), all.slice(0, 20));
    // The client resubscribes with afterSeq=20 but a server may resend a few more.
    const after = applyEvents(before, all.slice(15));
    expect(after).toEqual(inOrder());
  });

  it('reaches the same model for any delivery order with duplicates (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
        fc.integer(),
        (cuts, seed) => {
          // Split the stream into batches, shuffle them deterministically, add a duplicate batch.
          const rest = [...all];
          const batches = [];
          for (const c of cuts) batches.push(rest.splice(0, c));
          batches.push(rest);
          let s = seed >>> 0;
          for (let i = batches.length - 1; i > 0; i--) {
            s = (s * 1103515245 + 12345) >>> 0;
            const j = s % (i + 1);
            [batches[i], batches[j]] = [batches[j], batches[i]];
          }
          batches.push(batches[0]);
          let m = emptyRun('run1');
          for (const b of batches) m = applyEvents(m, b);
          expect(m).toEqual(inOrder());
        },
      ),
      { numRuns: 60 },
    );
  });
});
