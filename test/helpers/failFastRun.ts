/** Builders of realistic run event streams for the web reducer tests. */
import type { RequestOutcome, RunEvent, SeqEvent } from '#shared/protocol/protocol.ts';
import type { RequestEndStatus } from '#shared/types.ts';

export const T0 = 1_700_000_000_000;

export function outcome(index: number, status: RequestEndStatus, extra: Partial<RequestOutcome> = {}): RequestOutcome {
  return {
    index,
    requestId: `r-${index}`,
    status,
    ttftS: 0.1,
    e2elS: 1,
    audioTtfpS: 0.3,
    audioDurationS: 1,
    outputTokens: 10,
    promptLen: 5,
    attempts: status === 'not_dispatched' ? 0 : 1,
    error: '',
    sentT: status === 'not_dispatched' ? null : 10 * index,
    ...extra,
  };
}

/** A 4-request fail-fast run: r0 completes, r1 hangs in hift and times out, r2 is cancelled, r3 unsent. */
export function failFastRun(): RunEvent[] {
  const tel = (t: number, event: Record<string, unknown>): RunEvent =>
    ({ type: 'telemetry', t, event: { v: 1, ts: T0 + t, ...event } }) as RunEvent;
  return [
    { type: 'run.status', t: 0, status: 'running' },
    {
      type: 'run.started',
      t: 0,
      runId: 'run1',
      startedAtMs: T0,
      numRequests: 4,
      maxConcurrency: 2,
      requestRate: 'inf',
      failFast: true,
      model: 'm',
      baseUrl: 'http://x',
    },
    ...[0, 1, 2, 3].map((i): RunEvent => ({ type: 'request.queued', t: 0, index: i, requestId: `r-${i}` })),
    { type: 'request.sent', t: 1, index: 0, requestId: 'r-0', attempt: 1 },
    { type: 'request.sent', t: 1, index: 1, requestId: 'r-1', attempt: 1 },
    { type: 'request.first_token', t: 50, index: 0, ttftS: 0.049 },
    tel(60, { type: 'c2w.op.begin', workerId: 0, opId: 1, requestIds: ['r-0', 'r-1'], batchSize: 2 }),
    tel(61, {
      type: 'c2w.phase',
      workerId: 0,
      opId: 1,
      requestIds: ['r-0', 'r-1'],
      phase: 'setup',
      details: { batch_size: 2 },
    }),
    tel(62, {
      type: 'c2w.phase',
      workerId: 0,
      opId: 1,
      requestIds: ['r-0', 'r-1'],
      phase: 'cfm',
      details: { step: 1 },
    }),
    tel(63, {
      type: 'c2w.phase',
      workerId: 0,
      opId: 1,
      requestIds: ['r-0', 'r-1'],
      phase: 'cfm',
      details: { step: 2 },
    }),
    tel(70, { type: 'c2w.op.end', workerId: 0, opId: 1, requestIds: ['r-0', 'r-1'], durationMs: 10, ok: true }),
    { type: 'request.first_audio', t: 75, index: 0, audioTtfpS: 0.074 },
    { type: 'request.completed', t: 100, outcome: outcome(0, 'completed', { sentT: 1 }) },
    { type: 'request.sent', t: 101, index: 2, requestId: 'r-2', attempt: 1 },
    tel(110, { type: 'c2w.op.begin', workerId: 0, opId: 2, requestIds: ['r-1'], batchSize: 1 }),
    tel(111, {
      type: 'c2w.phase',
      workerId: 0,
      opId: 2,
      requestIds: ['r-1'],
      phase: 'hift',
      details: { mel_frames: 50 },
    }),
    tel(400, {
      type: 'watchdog.stall',
      report: {
        model: 'm',
        workerId: 0,
        opId: 2,
        requestIds: ['r-1'],
        phase: 'hift',
        details: { mel_frames: 50 },
        inPhaseS: 0.289,
        inOpS: 0.29,
        capturedAtMs: T0 + 400,
        deadlineMs: T0 + 399,
        stack: [{ function: 'deviceSync', file: 'worker.ts', line: 10, column: 3, language: 'js' }],
      },
    }),
    // The engine's order: the queue empties as the first timeout fires, before the cause is chosen.
    { type: 'request.unsent', t: 1001, outcome: outcome(3, 'not_dispatched', { stoppedBy: 'breaker' }) },
    { type: 'request.timed_out', t: 1001, kind: 'total', outcome: outcome(1, 'timed_out', { sentT: 1 }) },
    {
      type: 'breaker.tripped',
      t: 1001,
      cause: { requestIndex: 1, requestId: 'r-1', kind: 'total', elapsedS: 1, lastPhase: 'hift' },
      inFlight: 1,
      queued: 1,
    },
    {
      type: 'request.cancelled',
      t: 1003,
      outcome: outcome(2, 'cancelled_after_timeout', { sentT: 101, stoppedBy: 'breaker' }),
    },
    {
      type: 'run.finished',
      t: 1010,
      summary: {
        verdict: 'failed_closed',
        verdictReasons: ['1 timed out'],
        durationS: 1.01,
        breakerTripped: true,
        cause: { requestIndex: 1, requestId: 'r-1', kind: 'total', elapsedS: 1, lastPhase: 'hift' },
        counts: {
          total: 4,
          completed: 1,
          failed: 3,
          timedOut: 1,
          cancelledAfterTimeout: 2,
          cancelled: 0,
          errored: 0,
          unsent: 1,
        },
        metrics: { completed: 1, mean_ttft_ms: 49 },
      },
    },
    { type: 'run.status', t: 1011, status: 'finished' },
  ];
}

export function numbered(events: RunEvent[], from = 1): SeqEvent[] {
  return events.map((event, i) => ({ seq: from + i, event }));
}

/** Freeze a value deeply so a test fails if the reducer writes into its input. */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
