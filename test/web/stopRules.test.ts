/**
 * A run stopped by a stop rule, through the one event stream
 * (docs/design.md#stop-rules, docs/design.md#liveness-at-stall): the browser's
 * reducer and the dashboard hub keep the rule and its evidence (and what the
 * server still answered), the run page's story says it in words with the
 * evidence as links, the REST detail carries it, the form's hint says each
 * rule in words, and the Perfetto export marks the stop.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { describe, expect } from 'vitest';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import type { LivenessReport } from '#shared/stalls/liveness.ts';
import type { StoppedBy } from '#shared/config/stopRules.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { runStory, shownCounts } from '#shared/runView/runStory.ts';
import { stopRulesInWords } from '#web/pages/newRun/fieldText.ts';
import { buildChromeTrace } from '#server/dashboard/export/chromeTrace.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { deepFreeze, numbered } from '#test/helpers/failFastRun.ts';
import { newRun, outcome, runStarted } from '#test/helpers/sampleEvents.ts';

const STOP: StoppedBy = {
  kind: 'errors',
  rule: 'errors>=3',
  atS: 1.2,
  value: 3,
  requests: [1, 3, 5].map((index) => ({ index, requestId: `s1-${index}` })),
  omitted: 0,
};

const LIVENESS: LivenessReport = {
  trigger: { kind: 'no_progress', atS: 1.2, detail: 'the stop rule no_progress>=1s tripped' },
  boundMs: 2000,
  probes: [
    {
      name: 'health',
      method: 'GET',
      path: '/health',
      outcome: 'answered',
      status: 200,
      ms: 3,
      error: null,
      detail: '{}',
    },
    {
      name: 'models',
      method: 'GET',
      path: '/v1/models',
      outcome: 'answered',
      status: 200,
      ms: 2,
      error: null,
      detail: 'm',
    },
    {
      name: 'text',
      method: 'POST',
      path: '/v1/chat/completions',
      outcome: 'answered',
      status: 200,
      ms: 41,
      error: null,
      detail: 'ok',
    },
  ],
  stalled: { inFlight: 2, silentS: 62 },
};

/** 8 requests at concurrency 1, every 2nd failing; errors>=3 stops after #5; #6 and #7 are unsent. */
function stoppedRun(): RunEvent[] {
  const ends: RunEvent[] = [0, 1, 2, 3, 4, 5].flatMap((i): RunEvent[] => [
    { type: 'request.queued', t: i * 100, index: i, requestId: `s1-${i}` },
    { type: 'request.sent', t: i * 100 + 1, index: i, requestId: `s1-${i}`, attempt: 1 },
    i % 2
      ? { type: 'request.failed', t: i * 100 + 50, outcome: outcome('s1', i, 'failed') }
      : { type: 'request.completed', t: i * 100 + 50, outcome: outcome('s1', i, 'completed') },
  ]);
  const unsent = [6, 7].map((i): RunEvent => ({
    type: 'request.unsent',
    t: 1201,
    outcome: outcome('s1', i, 'not_dispatched', { attempts: 0, sentT: null, stoppedBy: 'breaker' }),
  }));
  return [
    { ...runStarted('s1', 8), stopOn: ['errors>=3'] } as RunEvent,
    ...ends,
    { type: 'run.stopped', t: 1200, stoppedBy: STOP, inFlight: 0, queued: 2 },
    ...unsent,
    { type: 'server.liveness', t: 1300, report: LIVENESS },
  ];
}

describe('a run stopped by a stop rule, in the browser', () => {
  it('the reducer keeps the rule, its evidence and the liveness report; the story says it, evidence as links', () => {
    const m = applyEvents(emptyRun('s1'), deepFreeze(numbered(stoppedRun())));
    expect(m.breaker).toEqual({ tripped: true, cause: null, stoppedBy: STOP, t: 1200 });
    expect(m.liveness).toEqual({ t: 1300, report: LIVENESS });
    const counts = shownCounts(m, null);
    expect(counts).toMatchObject({ completed: 3, errored: 3, cancelledAfterTimeout: 2, unsent: 2 });
    const story = runStory({ model: m, stalls: [], counts, waits: {}, interruptCause: null });
    expect(story.map((c) => c.map((p) => p.text).join(''))).toEqual([
      'the stop rule errors>=3 stopped the run at 1.20 s: 3 requests failed (#1, #3, #5)',
      '2 requests stopped by errors>=3 (2 unsent)',
    ]);
    const links = story[0].filter((p): p is { text: string; requests: number[] } => 'requests' in p);
    expect(links.map((l) => l.requests)).toEqual([[1], [3], [5]]);
  });

  it("fail-fast's own timeouts>=1 is told by the timeout clause alone, as before", () => {
    const m = applyEvents(
      emptyRun('s1'),
      numbered([
        runStarted('s1', 2),
        { type: 'request.timed_out', t: 900, kind: 'total', outcome: outcome('s1', 0, 'timed_out') },
        {
          type: 'breaker.tripped',
          t: 900,
          cause: { requestIndex: 0, requestId: 's1-0', kind: 'total', elapsedS: 0.9 },
          inFlight: 1,
          queued: 1,
        },
        {
          type: 'run.stopped',
          t: 900,
          stoppedBy: { ...STOP, kind: 'timeouts', rule: 'timeouts>=1' },
          inFlight: 1,
          queued: 1,
        },
      ]),
    );
    const story = runStory({ model: m, stalls: [], counts: m.counts, waits: {}, interruptCause: null });
    expect(story.map((c) => c.map((p) => p.text).join(''))).toEqual([
      '#0 hit its total timeout after 0.90 s, at 0.90 s',
    ]);
  });

  it('a run.finished alone (a run replayed without its run.stopped) still names the rule', () => {
    const m = applyEvents(
      emptyRun('s1'),
      numbered([
        runStarted('s1', 1),
        {
          type: 'run.finished',
          t: 5,
          summary: {
            verdict: 'failed_closed',
            verdictReasons: [],
            counts: {
              total: 1,
              completed: 0,
              failed: 1,
              timedOut: 0,
              cancelledAfterTimeout: 0,
              cancelled: 0,
              errored: 1,
              unsent: 0,
            },
            durationS: 0.005,
            breakerTripped: true,
            cause: null,
            stoppedBy: STOP,
            metrics: {},
          },
        },
      ]),
    );
    expect(m.breaker).toMatchObject({ tripped: true, stoppedBy: STOP });
  });

  it("the form's hint says each rule in words, and which is not a rule yet", () => {
    expect(stopRulesInWords(['errors>=3', 'no_progress>=2', 'p99'])).toBe(
      'errors>=3: stop once 3 requests have failed (any error, timeouts included); ' +
        'no_progress>=2s: stop when requests are in flight and none has received a byte for 2 s; p99: not a rule yet',
    );
    expect(stopRulesInWords([])).toMatch(/^stop the run, failing closed, when requests time out/);
  });
});

describe('a run stopped by a stop rule, in the dashboard', () => {
  it('the hub keeps the rule with the breaker, REST serves it, the trace marks the stop', async ({ app }) => {
    sqliteOf(app.hub.store).runs.insertRun(newRun('s1'));
    app.hub.open('s1', null);
    for (const e of stoppedRun()) app.hub.append('s1', e);
    expect(app.hub.tracker('s1')!.state.breaker).toEqual({ tripped: true, cause: null, stoppedBy: STOP });
    sqliteOf(app.hub.store).writer.flush();
    const detail = (await app.inject({ url: '/api/runs/s1' })).json();
    expect(detail.breaker).toEqual({ tripped: true, cause: null, stoppedBy: STOP });
    const trace = buildChromeTrace('s1', null, stoppedRun(), []);
    expect(trace.traceEvents).toContainEqual(
      expect.objectContaining({ name: 'stopped by errors>=3', ph: 'i', s: 'g', ts: 1_200_000, cat: 'breaker' }),
    );
  });
});
