/** Builders of realistic run events for store, hub and route tests. */
import type { RequestOutcome, RunEvent } from '../../../shared/protocol.ts';
import type { RequestEndStatus, StallReport } from '../../../shared/types.ts';
import type { NewRun } from '../../../server/store/runQueries.ts';

export function newRun(id: string, extra: Partial<NewRun> = {}): NewRun {
  return {
    id, source: 'dashboard', status: 'running', label: `label-${id}`, model: 'm', target: 'embedded', dataset: 'random',
    numPrompts: 10, maxConcurrency: 2, requestRate: 'inf', failFast: true, createdAtMs: Date.now(), metadata: {}, ...extra,
  };
}

export function outcome(runId: string, index: number, status: RequestEndStatus, extra: Partial<RequestOutcome> = {}): RequestOutcome {
  return {
    index, requestId: `${runId}-${index}`, status, ttftS: 0.01, e2elS: 0.5, audioTtfpS: 0.1, audioDurationS: 1, outputTokens: 16,
    promptLen: 32, attempts: 1, error: '', sentT: index, ...extra,
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

export function stallReport(runId: string, opId: number, phase = 'hift'): StallReport {
  return {
    model: 'm', workerId: 0, opId, requestIds: [`${runId}-0`, `${runId}-1`], phase, details: { mel_frames: 100 },
    inPhaseS: 1.2, inOpS: 1.5, capturedAtMs: Date.now(), deadlineMs: Date.now() - 100,
    stack: [{ function: 'blockForever', file: 'server/target/faults.ts', line: 10, column: 3, language: 'js' }],
  };
}

export function stallEvent(runId: string, opId: number, phase = 'hift'): RunEvent {
  return { type: 'telemetry', t: 0, event: { v: 1, ts: Date.now(), type: 'watchdog.stall', report: stallReport(runId, opId, phase) } };
}
