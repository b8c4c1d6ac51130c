/**
 * The one request fold, on the cases where the hand-written folds it
 * replaced disagreed: when a message makes a request `streaming`, what an
 * ended request does with late events, which value the end takes (the
 * outcome's), the field's one name, and the counts through shared/requests/outcomes.ts.
 */
import { describe, expect, it } from 'vitest';
import type { RequestOutcome } from '#shared/protocol/protocol.ts';
import type { RequestEndStatus } from '#shared/types.ts';
import { emptyCounts } from '#shared/requests/outcomes.ts';
import {
  blankRequest,
  foldRequest,
  tallyStep,
  type RequestEvent,
  type RequestLifecycle,
  type RequestTally,
} from '#shared/requests/requestLifecycle.ts';

function outcome(status: RequestEndStatus, extra: Partial<RequestOutcome> = {}): RequestOutcome {
  return {
    index: 0,
    requestId: 'r-0',
    status,
    ttftS: 0.1,
    e2elS: 1,
    audioTtfpS: 0.2,
    audioDurationS: 2,
    outputTokens: 9,
    promptLen: 4,
    attempts: 1,
    error: '',
    sentT: 5,
    ...extra,
  };
}

const queued: RequestEvent = { type: 'request.queued', t: 1, index: 0, requestId: 'r-0' };
const sent = (t: number, attempt = 1): RequestEvent => ({
  type: 'request.sent',
  t,
  index: 0,
  requestId: 'r-0',
  attempt,
});
const firstToken = (t: number): RequestEvent => ({ type: 'request.first_token', t, index: 0, ttftS: t / 1000 });
const progress = (t: number, outputTokens: number, audioS: number): RequestEvent => ({
  type: 'request.progress',
  t,
  index: 0,
  outputTokens,
  audioS,
});

/** Folds `events` into a blank row of request 0; returns the row and the run's tallies. */
function fold(events: RequestEvent[]): { row: RequestLifecycle; tally: RequestTally } {
  const row = blankRequest(0);
  const tally: RequestTally = { counts: emptyCounts(1), inFlight: 0 };
  for (const e of events) tallyStep(tally, foldRequest(row, e));
  return { row, tally };
}

describe('the request fold', () => {
  it('walks a request through queued, sent, streaming and its end, holding a slot from send to end', () => {
    const steps = [queued, sent(5), firstToken(8)].map((e) => fold([e]));
    expect(steps.map((s) => s.row.status)).toEqual(['queued', 'sent', 'streaming']);
    const { row, tally } = fold([
      queued,
      sent(5),
      firstToken(8),
      { type: 'request.completed', t: 20, outcome: outcome('completed') },
    ]);
    expect(row).toEqual({
      index: 0,
      requestId: 'r-0',
      status: 'completed',
      queuedT: 1,
      sentT: 5,
      firstTokenT: 8,
      firstAudioT: null,
      endT: 20,
      attempts: 1,
      outputTokens: 9,
      audioDurationS: 2,
      timeoutKind: null,
    });
    expect(tally.inFlight).toBe(0);
    expect(tally.counts).toMatchObject({ completed: 1, failed: 0 });
    expect(fold([queued, sent(5)]).tally.inFlight).toBe(1);
  });

  it('a first token makes a sent request streaming without taking a second slot', () => {
    const { row, tally } = fold([queued, sent(5), firstToken(8), firstToken(9)]);
    expect(row).toMatchObject({ status: 'streaming', firstTokenT: 9 });
    expect(tally.inFlight).toBe(1);
  });

  it('a message without a token (progress alone) also says the answer is streaming', () => {
    const { row, tally } = fold([queued, sent(5), progress(6, 0, 0.5)]);
    expect(row).toMatchObject({ status: 'streaming', firstTokenT: null, audioDurationS: 0.5 });
    expect(tally.inFlight).toBe(1);
  });

  it('a first token whose send was lost on the way makes the request streaming and in flight', () => {
    const { row, tally } = fold([queued, firstToken(8)]);
    expect(row).toMatchObject({ status: 'streaming', queuedT: 1, firstTokenT: 8 });
    expect(tally.inFlight).toBe(1);
  });

  it('an end is final: a late first token, progress, send or second end changes neither the row nor the counts', () => {
    const ended = fold([
      queued,
      sent(5),
      { type: 'request.timed_out', t: 20, kind: 'idle', outcome: outcome('timed_out') },
    ]);
    const before = structuredClone(ended);
    for (const late of [
      firstToken(30),
      { type: 'request.first_audio', t: 31, index: 0, audioTtfpS: 0.03 } as const,
      progress(32, 50, 9),
      sent(33, 2),
      queued,
      { type: 'request.completed', t: 34, outcome: outcome('completed') } as const,
    ]) {
      tallyStep(ended.tally, foldRequest(ended.row, late));
      expect(ended).toEqual(before);
    }
    expect(before.row).toMatchObject({ status: 'timed_out', timeoutKind: 'idle', firstTokenT: null });
    expect(before.tally.counts).toMatchObject({ failed: 1, timedOut: 1, completed: 0 });
  });

  it('a retry starts the attempt afresh and keeps the one slot', () => {
    const { row, tally } = fold([queued, sent(5), firstToken(8), sent(10, 2)]);
    expect(row).toMatchObject({ status: 'sent', sentT: 10, attempts: 2, firstTokenT: null, firstAudioT: null });
    expect(tally.inFlight).toBe(1);
  });

  it("at the end the outcome is authoritative: the first send's time, its attempts, tokens and audio", () => {
    const { row } = fold([
      queued,
      sent(5),
      progress(7, 30, 3),
      sent(10, 2),
      {
        type: 'request.failed',
        t: 20,
        outcome: outcome('failed', { sentT: 5, attempts: 2, outputTokens: 0, audioDurationS: 0 }),
      },
    ]);
    expect(row).toMatchObject({ status: 'failed', sentT: 5, attempts: 2, outputTokens: 0, audioDurationS: 0 });
  });

  it('an unsent request keeps no send time, holds no slot, and counts as the cancellation that stopped it', () => {
    const { row, tally } = fold([
      queued,
      {
        type: 'request.unsent',
        t: 3,
        outcome: outcome('not_dispatched', { sentT: null, attempts: 0, stoppedBy: 'breaker' }),
      },
    ]);
    expect(row).toMatchObject({ status: 'not_dispatched', sentT: null, endT: 3 });
    expect(tally.inFlight).toBe(0);
    expect(tally.counts).toMatchObject({ failed: 1, unsent: 1, cancelledAfterTimeout: 1 });
  });

  it('names the audio duration as the stored row and the REST reply do', () => {
    const { row } = fold([sent(1), progress(2, 3, 1.5)]);
    expect(row.audioDurationS).toBe(1.5);
    expect(Object.keys(row)).not.toContain('audioS');
  });
});
