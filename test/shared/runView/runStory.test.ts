/**
 * The run page's story, pure (web/state/runStory.ts): cards, counts for
 * imported runs, waits behind a stalled op, request endings, the sentence,
 * and the exact concurrency per bucket (web/state/selectors.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { lifeSegments } from '#web/components/timeline/geometry.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRow, emptyRun, type RequestView } from '#shared/runView/runModel.ts';
import {
  blockedWaits,
  blockedWaitText,
  breakerWords,
  endingText,
  outcomeCards,
  runStory,
  shownCounts,
} from '#shared/runView/runStory.ts';
import { activePerBucket, exactPeak, outcomeSeries } from '#web/state/selectors.ts';
import { failFastRun, numbered, T0 } from '#test/helpers/failFastRun.ts';

const tel = (t: number, event: Record<string, unknown>): RunEvent =>
  ({ type: 'telemetry', t, event: { v: 1, ts: T0 + t, ...event } }) as RunEvent;

/** The fail-fast run, with r-2's first chunk decoded (op 3, 102–108 ms) before op 2 hangs at 110 ms. */
function hangRun(): RunEvent[] {
  const ev = failFastRun();
  const at = ev.findIndex((e) => e.type === 'request.sent' && e.index === 2) + 1;
  ev.splice(
    at,
    0,
    tel(102, { type: 'c2w.op.begin', workerId: 0, opId: 3, requestIds: ['r-2'], batchSize: 1 }),
    tel(103, { type: 'c2w.phase', workerId: 0, opId: 3, requestIds: ['r-2'], phase: 'hift', details: {} }),
    tel(108, { type: 'c2w.op.end', workerId: 0, opId: 3, requestIds: ['r-2'], durationMs: 6, ok: true }),
    { type: 'request.first_audio', t: 109, index: 2, audioTtfpS: 0.008 },
  );
  return ev;
}
const m = applyEvents(emptyRun('run1'), numbered(hangRun()));

describe('outcome cards', () => {
  it('failed is everything not completed, its non-zero parts inside it, in one vocabulary', () => {
    const cards = outcomeCards(m.counts);
    expect(cards.map((c) => [c.id, c.value, c.part])).toEqual([
      ['total', 4, false],
      ['completed', 1, false],
      ['failed', 3, false],
      ['timed_out', 1, true],
      ['cancelled_after_timeout', 2, true],
      ['not_dispatched', 1, true],
    ]);
    expect(cards.find((c) => c.id === 'not_dispatched')!.label).toBe('unsent');
    const cancel = outcomeCards(
      {
        total: 5,
        completed: 1,
        failed: 4,
        timedOut: 0,
        cancelledAfterTimeout: 0,
        cancelled: 3,
        errored: 1,
        unsent: 2,
      },
      2,
    );
    expect(cancel.map((c) => c.id)).toEqual([
      'total',
      'inflight',
      'completed',
      'failed',
      'cancelled',
      'not_dispatched',
      'errored',
    ]);
  });

  it('an imported run (rows, no events) shows the stored counts; a live one its own; a finished one the engine’s', () => {
    const stored = {
      total: 5,
      completed: 5,
      failed: 0,
      timedOut: 0,
      cancelledAfterTimeout: 0,
      cancelled: 0,
      errored: 0,
      unsent: 0,
    };
    const imported = { ...emptyRun('i'), requests: [0, 1, 2, 3, 4].map((i) => emptyRow(i, `i-${i}`)) };
    expect(shownCounts(imported, stored).completed).toBe(5);
    const live = applyEvents(emptyRun('run1'), numbered(hangRun().slice(0, 20)));
    expect(live.summary).toBeNull();
    expect(shownCounts(live, { ...stored, total: 4, completed: 0 })).toEqual(live.counts);
    expect(shownCounts(m, null)).toEqual(m.summary!.counts);
  });
});

describe('waiting behind a stalled op', () => {
  it('is the time a request of the same worker spent queued behind it, cut out of its life and drawn apart', () => {
    const waits = blockedWaits(m, m.lastT);
    // r-1 is in the stalled op (its phases say so); r-0 ended before it began; r-3 never ran.
    expect(Object.keys(waits)).toEqual(['r-2']);
    expect(waits['r-2']).toEqual({ t0: 110, t1: 1003, opKey: '0:2', opId: 2, workerId: 0, phase: 'hift' });
    expect(blockedWaitText(waits['r-2'])).toBe('waiting: queued behind op 2, hift, stalled');
    const row = m.requests[2];
    const segs = lifeSegments(row, m.lastT, waits['r-2']);
    expect(segs.map((s) => [s.kind, s.t0, s.t1])).toEqual([
      ['queued', 0, 101],
      ['waiting', 101, 109],
      ['audio', 109, 110],
      ['blocked', 110, 1003],
    ]);
    // Without a stall, nothing is blocked.
    expect(lifeSegments(row, m.lastT).some((s) => s.kind === 'blocked')).toBe(false);
  });
});

describe('request endings', () => {
  it('say how long the request ran and how it ended, not a 0 ms latency', () => {
    expect(endingText(m.requests[1])).toBe('ran 1.00 s, then timed out (total timeout)');
    expect(endingText(m.requests[2])).toBe('ran 0.90 s, then cancelled by the fail-fast breaker after a timeout');
    expect(endingText(m.requests[3])).toBe('unsent');
    expect(endingText({ ...m.requests[1], endT: null, status: 'streaming' } as RequestView)).toBeNull();
  });
});

describe('the story', () => {
  it('ties the stall, the waits, the timeout and the breaker together, with links', () => {
    const clauses = runStory({
      model: m,
      stalls: m.stalls,
      counts: m.counts,
      waits: blockedWaits(m, m.lastT),
      interruptCause: null,
    });
    const text = clauses.map((c) => c.map((p) => p.text).join('')).join('; ');
    expect(text).toBe(
      'Code2Wav op 2 stalled in hift at 0.11 s (worker 0); request #1 was in it; request #2 waited behind it; ' +
        '#1 hit its total timeout after 1.00 s, at 1.00 s; the breaker cancelled 2 requests (1 unsent)',
    );
    const links = clauses.flat().filter((p) => 'requests' in p);
    expect(links.map((p) => ('requests' in p ? p.requests : []))).toEqual([[1], [2], [1]]);
  });

  it('names a dashboard cancel and counts what it aborted', () => {
    const counts = {
      total: 20,
      completed: 6,
      failed: 14,
      timedOut: 0,
      cancelledAfterTimeout: 0,
      cancelled: 14,
      errored: 0,
      unsent: 10,
    };
    const clauses = runStory({ model: emptyRun('x'), stalls: [], counts, waits: {}, interruptCause: 'dashboard' });
    expect(clauses.map((c) => c.map((p) => p.text).join(''))).toEqual([
      'the run was cancelled from the dashboard: 4 requests aborted in flight, 10 unsent',
    ]);
  });

  it('a finished run that never tripped reads "not tripped", not "armed"', () => {
    expect(breakerWords(true, false, true)).toEqual({ state: 'armed', text: 'armed' });
    expect(breakerWords(true, false, false)).toEqual({ state: 'not_tripped', text: 'not tripped' });
    expect(breakerWords(true, true, false).state).toBe('tripped');
    expect(breakerWords(false, false, false).state).toBe('off');
  });
});

describe('exact concurrency per bucket', () => {
  const row = (i: number, sentT: number, endT: number | null): RequestView => ({
    ...emptyRow(i, `c-${i}`),
    status: endT === null ? 'streaming' : 'completed',
    sentT,
    endT,
  });
  it('requests that follow each other within a bucket do not add up (a concurrency-1 run stays 1)', () => {
    const rows = [row(0, 0, 100), row(1, 100, 200), row(2, 200, 300), row(3, 300, null)];
    expect(activePerBucket(rows, 2, 250)).toEqual([1, 1]);
    expect(exactPeak(rows)).toBe(1);
    expect(outcomeSeries(rows, 400, 4).map((p) => p.inFlight)).toEqual([1, 1, 1, 1]);
    // Overlap counts: two at once in the second bucket only.
    expect(activePerBucket([row(0, 0, 150), row(1, 120, 300)], 3, 100)).toEqual([1, 2, 1]);
  });
});
