import { describe, expect, it } from 'vitest';
import { RunTracker } from '#server/dashboard/hub/runTracker.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';

describe('run tracker', () => {
  it('folds a fail-fast run: counts, in-flight, breaker cause with the phase from telemetry, request rows', () => {
    const tr = new RunTracker('r', 'L');
    const effects = hangRunEvents('r').map((e, i) => tr.apply(i + 1, e));
    const s = tr.state;
    expect(s.seq).toBe(hangRunEvents('r').length);
    expect(s.startedAtMs).toBe(1_000_000);
    expect(s.inFlight).toBe(0);
    expect(s.verdict).toBe('failed_closed');
    expect(s.counts).toEqual({
      total: 6,
      completed: 2,
      failed: 4,
      timedOut: 1,
      cancelledAfterTimeout: 3,
      cancelled: 0,
      errored: 0,
      unsent: 2,
    });
    expect(s.breaker.cause).toMatchObject({ requestIndex: 2, lastPhase: 'hift' });
    expect(effects.filter((e) => e.stall)).toHaveLength(1);
    expect(effects.filter((e) => e.endedRow).map((e) => e.endedRow!.status)).toEqual([
      'completed',
      'completed',
      'timed_out',
      'not_dispatched',
      'not_dispatched',
      'cancelled_after_timeout',
    ]);
    const row2 = effects.find((e) => e.endedRow?.index === 2)!.endedRow;
    expect(row2).toMatchObject({ queuedT: 10, sentT: 11, endT: 4011, timeoutKind: 'total' });
    // Ended rows went to the store: none is held here any more.
    expect(tr.requests.size).toBe(0);
  });

  it('counts in-flight requests once per request across retries, and folds counts before run.finished', () => {
    const tr = new RunTracker('r', null);
    let seq = 0;
    tr.apply(++seq, { type: 'request.sent', t: 1, index: 0, requestId: 'r-0', attempt: 1 });
    tr.apply(++seq, { type: 'request.sent', t: 2, index: 0, requestId: 'r-0', attempt: 2 });
    tr.apply(++seq, { type: 'request.sent', t: 2, index: 1, requestId: 'r-1', attempt: 1 });
    expect(tr.state.inFlight).toBe(2);
    expect(tr.requests.get(0)).toMatchObject({ attempts: 2, sentT: 2 });
    tr.apply(++seq, {
      type: 'breaker.tripped',
      t: 3,
      cause: { requestIndex: 1, requestId: 'r-1', kind: 'idle', elapsedS: 1 },
      inFlight: 2,
      queued: 1,
    });
    tr.apply(++seq, {
      type: 'request.unsent',
      t: 3,
      outcome: {
        index: 2,
        requestId: 'r-2',
        status: 'not_dispatched',
        ttftS: 0,
        e2elS: 0,
        audioTtfpS: 0,
        audioDurationS: 0,
        outputTokens: 0,
        promptLen: 1,
        attempts: 0,
        error: '',
        sentT: null,
        stoppedBy: 'breaker',
      },
    });
    expect(tr.state.counts).toMatchObject({ unsent: 1, cancelledAfterTimeout: 1, failed: 1 });
    expect(tr.state.breaker.cause!.lastPhase).toBeNull();
    tr.apply(seq + 1, { type: 'run.status', t: 4, status: 'interrupted' });
    expect(tr.state).toMatchObject({ status: 'interrupted', verdict: 'interrupted' });
  });

  it("a request whose op ended is not reported in that op's phase: it is queued behind the op its worker is running", () => {
    const tr = new RunTracker('r', null);
    let seq = 0;
    const tele = (event: Record<string, unknown>) =>
      tr.apply(++seq, { type: 'telemetry', t: seq, event: { v: 1, ts: 1000 + seq, ...event } } as RunEvent);
    tele({ type: 'c2w.op.begin', workerId: 0, opId: 1, requestIds: ['r-0'], batchSize: 1 });
    tele({ type: 'c2w.phase', workerId: 0, opId: 1, requestIds: ['r-0'], phase: 'hift', details: {} });
    tele({ type: 'c2w.phase', workerId: 0, opId: 1, requestIds: ['r-0'], phase: 'output_copy', details: {} });
    expect(tr.phaseOf('r-0')).toBe('output_copy');
    tele({ type: 'c2w.op.end', workerId: 0, opId: 1, requestIds: ['r-0'], durationMs: 5, ok: true });
    expect(tr.phaseOf('r-0')).toBe('waiting for Code2Wav');
    tele({ type: 'c2w.op.begin', workerId: 0, opId: 2, requestIds: ['r-1'], batchSize: 1 });
    expect(tr.phaseOf('r-0')).toBe('queued behind op 2');
    tele({ type: 'c2w.phase', workerId: 0, opId: 2, requestIds: ['r-1'], phase: 'setup', details: {} });
    tele({ type: 'c2w.phase', workerId: 0, opId: 2, requestIds: ['r-1'], phase: 'hift', details: {} });
    expect(tr.phaseOf('r-1')).toBe('hift');
    expect(tr.phaseOf('r-0')).toBe('queued behind op 2 (hift)');
    expect(tr.phaseOf('r-7')).toBeUndefined();
    tr.apply(++seq, {
      type: 'breaker.tripped',
      t: seq,
      cause: { requestIndex: 0, requestId: 'r-0', kind: 'total', elapsedS: 4 },
      inFlight: 2,
      queued: 0,
    });
    expect(tr.state.breaker.cause!.lastPhase).toBe('queued behind op 2 (hift)');
    tele({ type: 'c2w.op.end', workerId: 0, opId: 2, requestIds: ['r-1'], durationMs: 5000, ok: true });
    expect(tr.phaseOf('r-1')).toBe('waiting for Code2Wav');
  });
});
