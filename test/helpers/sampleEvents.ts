/** Builders of realistic run events for store, hub and route tests. */
import type { RequestOutcome, RunEvent } from '#shared/protocol/protocol.ts';
import type { RequestEndStatus, WatchdogStallReport } from '#shared/types.ts';
import type { NewRun } from '#server/dashboard/store/common/records.ts';

export function newRun(id: string, extra: Partial<NewRun> = {}): NewRun {
  return {
    id,
    source: 'dashboard',
    status: 'running',
    label: `label-${id}`,
    model: 'm',
    target: 'embedded',
    dataset: 'random',
    numPrompts: 10,
    maxConcurrency: 2,
    requestRate: 'inf',
    failFast: true,
    createdAtMs: Date.now(),
    metadata: {},
    ...extra,
  };
}

export function outcome(
  runId: string,
  index: number,
  status: RequestEndStatus,
  extra: Partial<RequestOutcome> = {},
): RequestOutcome {
  return {
    index,
    requestId: `${runId}-${index}`,
    status,
    ttftS: 0.01,
    e2elS: 0.5,
    audioTtfpS: 0.1,
    audioDurationS: 1,
    outputTokens: 16,
    promptLen: 32,
    attempts: 1,
    error: '',
    sentT: index,
    ...extra,
  };
}

/** The event a run's stream starts with: its clock and the number of requests it declares. */
export function runStarted(runId: string, numRequests: number, startedAtMs = 1_000_000): RunEvent {
  return {
    type: 'run.started',
    t: 0,
    runId,
    startedAtMs,
    numRequests,
    maxConcurrency: 2,
    requestRate: 'inf',
    failFast: false,
    model: 'm',
    baseUrl: 'http://127.0.0.1:9',
  };
}

/** queued, sent, first token, completed: four events for one request. */
export function completedRequest(runId: string, index: number, t = index): RunEvent[] {
  const requestId = `${runId}-${index}`;
  return [
    { type: 'request.queued', t, index, requestId },
    { type: 'request.sent', t: t + 1, index, requestId, attempt: 1 },
    { type: 'request.first_token', t: t + 2, index, ttftS: 0.001 },
    { type: 'request.completed', t: t + 3, outcome: outcome(runId, index, 'completed', { sentT: t + 1 }) },
  ];
}

export function stallReport(runId: string, opId: number, phase = 'hift'): WatchdogStallReport {
  return {
    model: 'm',
    workerId: 0,
    opId,
    requestIds: [`${runId}-0`, `${runId}-1`],
    phase,
    details: { mel_frames: 100 },
    inPhaseS: 1.2,
    inOpS: 1.5,
    capturedAtMs: Date.now(),
    deadlineMs: Date.now() - 100,
    stack: [{ function: 'blockForever', file: 'server/repro/faults.ts', line: 10, column: 3, language: 'js' }],
  };
}

export function stallEvent(runId: string, opId: number, phase = 'hift'): RunEvent {
  return {
    type: 'telemetry',
    t: 0,
    event: { v: 1, ts: Date.now(), type: 'watchdog.stall', report: stallReport(runId, opId, phase) },
  };
}

/**
 * A fail-fast run in miniature: 0 and 1 complete, 2 hangs in Code2Wav hift
 * (op begin, phases, watchdog stall) and times out, the breaker trips,
 * 3 is cancelled in flight, 4 and 5 are unsent.
 */
export function hangRunEvents(runId: string, startedAtMs = 1_000_000): RunEvent[] {
  const ids = [0, 1, 2, 3].map((i) => `${runId}-${i}`);
  const tele = (t: number, event: Record<string, unknown>): RunEvent =>
    ({ type: 'telemetry', t, event: { v: 1, ts: startedAtMs + t, ...event } }) as RunEvent;
  const cause = { requestIndex: 2, requestId: ids[2], kind: 'total' as const, elapsedS: 4 };
  return [
    {
      type: 'run.started',
      t: 0,
      runId,
      startedAtMs,
      numRequests: 6,
      maxConcurrency: 2,
      requestRate: 'inf',
      failFast: true,
      model: 'm',
      baseUrl: 'http://127.0.0.1:1',
    },
    ...completedRequest(runId, 0, 0),
    ...completedRequest(runId, 1, 5),
    { type: 'request.queued', t: 10, index: 2, requestId: ids[2] },
    { type: 'request.sent', t: 11, index: 2, requestId: ids[2], attempt: 1 },
    { type: 'request.queued', t: 10, index: 3, requestId: ids[3] },
    { type: 'request.sent', t: 12, index: 3, requestId: ids[3], attempt: 1 },
    tele(20, { type: 'c2w.op.begin', workerId: 0, opId: 5, requestIds: [ids[2], ids[3]], batchSize: 2 }),
    tele(21, {
      type: 'c2w.phase',
      workerId: 0,
      opId: 5,
      requestIds: [ids[2], ids[3]],
      phase: 'setup',
      details: { batch_size: 2 },
    }),
    tele(25, {
      type: 'c2w.phase',
      workerId: 0,
      opId: 5,
      requestIds: [ids[2], ids[3]],
      phase: 'hift',
      details: { mel_frames: 50 },
    }),
    {
      type: 'telemetry',
      t: 1100,
      event: {
        v: 1,
        ts: startedAtMs + 1100,
        type: 'watchdog.stall',
        report: { ...stallReport(runId, 5), requestIds: [ids[2], ids[3]], capturedAtMs: startedAtMs + 1100 },
      },
    },
    // The engine's order: the first timeout stops the run at once, so the queued requests end
    // not_dispatched before the cause is chosen (breaker.tripped) and the in-flight ones are cancelled.
    {
      type: 'request.timed_out',
      t: 4011,
      kind: 'total',
      outcome: outcome(runId, 2, 'timed_out', { error: 'total timeout after 4 s', sentT: 11 }),
    },
    {
      type: 'request.unsent',
      t: 4011,
      outcome: outcome(runId, 4, 'not_dispatched', { sentT: null, attempts: 0, stoppedBy: 'breaker' }),
    },
    {
      type: 'request.unsent',
      t: 4011,
      outcome: outcome(runId, 5, 'not_dispatched', { sentT: null, attempts: 0, stoppedBy: 'breaker' }),
    },
    { type: 'breaker.tripped', t: 4011, cause, inFlight: 1, queued: 2 },
    {
      type: 'request.cancelled',
      t: 4012,
      outcome: outcome(runId, 3, 'cancelled_after_timeout', {
        error: 'cancelled, "breaker"',
        sentT: 12,
        stoppedBy: 'breaker',
      }),
    },
    {
      type: 'run.finished',
      t: 4020,
      summary: {
        verdict: 'failed_closed',
        verdictReasons: ['1 request timed out'],
        durationS: 4.02,
        breakerTripped: true,
        cause,
        counts: {
          total: 6,
          completed: 2,
          failed: 4,
          timedOut: 1,
          cancelledAfterTimeout: 3,
          cancelled: 0,
          errored: 0,
          unsent: 2,
        },
        metrics: { completed: 2, failed: 4, mean_ttft_ms: 1 },
      },
    },
  ];
}

/** A run's last event: all `n` requests completed, passed. */
export function runFinished(n: number): RunEvent {
  return {
    type: 'run.finished',
    t: 99_000,
    summary: {
      verdict: 'passed',
      verdictReasons: [],
      durationS: 99,
      breakerTripped: false,
      cause: null,
      counts: {
        total: n,
        completed: n,
        failed: 0,
        timedOut: 0,
        cancelledAfterTimeout: 0,
        cancelled: 0,
        errored: 0,
        unsent: 0,
      },
      metrics: { completed: n, failed: 0 },
    },
  };
}

/** A run stopped early: 9 completed, 1 failed, the rest (10..n) one unsent range, as a stopped run's tail is stored. */
export function stoppedRun(id: string, n: number): RunEvent[] {
  const events: RunEvent[] = [runStarted(id, n)];
  for (let i = 0; i < 9; i++) events.push(...completedRequest(id, i, i * 4));
  events.push(
    { type: 'request.queued', t: 40, index: 9, requestId: `${id}-9` },
    { type: 'request.sent', t: 41, index: 9, requestId: `${id}-9`, attempt: 1 },
    { type: 'request.failed', t: 42, outcome: outcome(id, 9, 'failed', { error: 'HTTP 500', sentT: 41 }) },
    { type: 'requests.unsent', t: 50, from: 10, to: n, error: 'not dispatched: breaker', stoppedBy: 'breaker' },
  );
  return events;
}
