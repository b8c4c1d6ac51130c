/**
 * The Perfetto export names the requests a stop cancelled by the rule that stopped the run (every label a
 * human reads names the rule), while their status key stays vLLM's `cancelled_after_timeout` (docs/design.md#stop-rules).
 */
import { describe, expect, it } from 'vitest';
import type { RequestRow } from '#shared/protocol/apiSchemas.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import type { StoppedBy } from '#shared/config/stopRules.ts';
import { buildChromeTrace } from '#server/dashboard/export/chromeTrace.ts';
import { outcome, runStarted } from '#test/helpers/sampleEvents.ts';

const stop = (kind: StoppedBy['kind'], rule: string): StoppedBy => ({
  kind,
  rule,
  atS: 0.3,
  value: 3,
  requests: [],
  omitted: 0,
});

/** Requests 0..2 failed, then the stop; 3 cancelled in flight (before or after the run.stopped is written), 4 by the user. */
function run(stopped: StoppedBy | null, cancelFirst = false): RunEvent[] {
  const events: RunEvent[] = [runStarted('t1', 5)];
  for (let i = 0; i < 5; i++)
    events.push(
      { type: 'request.queued', t: i * 10, index: i, requestId: `t1-${i}` },
      { type: 'request.sent', t: i * 10 + 1, index: i, requestId: `t1-${i}`, attempt: 1 },
    );
  for (let i = 0; i < 3; i++)
    events.push({ type: 'request.failed', t: 100 + i, outcome: outcome('t1', i, 'failed', { error: 'HTTP 500' }) });
  const cancelled: RunEvent = {
    type: 'request.cancelled',
    t: 301,
    outcome: outcome('t1', 3, 'cancelled_after_timeout', { error: 'cancelled' }),
  };
  const stoppedAt: RunEvent[] = stopped
    ? [{ type: 'run.stopped', t: 300, stoppedBy: stopped, inFlight: 1, queued: 0 }]
    : [];
  events.push(...(cancelFirst ? [cancelled, ...stoppedAt] : [...stoppedAt, cancelled]));
  events.push({ type: 'request.cancelled', t: 302, outcome: outcome('t1', 4, 'cancelled', { error: 'interrupted' }) });
  return events;
}

const row = (index: number, status: string): RequestRow => ({
  index,
  requestId: `t1-${index}`,
  status,
  queuedT: index * 10,
  sentT: index * 10 + 1,
  firstTokenT: null,
  firstAudioT: null,
  endT: 301,
  ttftS: 0,
  e2elS: 0,
  audioTtfpS: 0,
  audioDurationS: 0,
  outputTokens: 0,
  promptLen: 0,
  attempts: 1,
  error: 'cancelled',
  timeoutKind: null,
});

function names(events: RunEvent[]) {
  const { traceEvents } = buildChromeTrace('t1', null, events, [
    row(3, 'cancelled_after_timeout'),
    row(4, 'cancelled'),
  ]);
  const on = (tid: number) => traceEvents.filter((e) => e.pid === 1 && e.tid === tid && e.ph !== 'M');
  return {
    instant: on(4).find((e) => e.ph === 'i')!,
    slice: on(4).find((e) => e.ph === 'X' && e.name.startsWith('request 3'))!,
    user: on(5)
      .filter((e) => e.ph === 'i' || e.name.startsWith('request 4'))
      .map((e) => e.name),
    all: traceEvents.map((e) => e.name),
  };
}

describe('the trace names a stop-cancelled request by the rule that stopped the run', () => {
  it('errors>=3: the instant and the request slice say "stopped by errors>=3", the status key kept', () => {
    const t = names(run(stop('errors', 'errors>=3')));
    expect(t.instant).toMatchObject({ name: 'stopped by errors>=3', cat: 'breaker' });
    expect(t.instant.args).toEqual({ status: 'cancelled_after_timeout' });
    expect(t.slice.name).toBe('request 3: stopped by errors>=3');
    expect(t.slice.args!.status).toBe('cancelled_after_timeout');
    expect(t.all).not.toContain('cancelled after timeout');
    // A request the user cancelled is not the stop's.
    expect(t.user).toEqual(['cancelled', 'request 4: cancelled']);
  });

  it('no_progress>=3s: named in words, also when the cancellation is written before the run.stopped', () => {
    for (const first of [false, true]) {
      const t = names(run(stop('no_progress', 'no_progress>=3s'), first));
      expect(t.instant.name).toBe('stopped: no progress for 3 s');
      expect(t.slice.name).toBe('request 3: stopped: no progress for 3 s');
    }
  });

  it('a timeout stop (the breaker, or timeouts>=N) keeps "cancelled after timeout" and the key as the slice name', () => {
    for (const stopped of [null, stop('timeouts', 'timeouts>=1')]) {
      const t = names(run(stopped));
      expect(t.instant.name).toBe('cancelled after timeout');
      expect(t.slice.name).toBe('request 3: cancelled_after_timeout');
    }
  });
});
