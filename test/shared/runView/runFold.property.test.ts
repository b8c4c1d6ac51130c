/**
 * The dashboard hub's tracker and the browser's run model fold the run-level
 * events through the one run fold (shared/runView/runFold.ts): fed the same
 * stream, they hold the same status, start, counts, breaker, verdict and
 * interrupt cause at every point of it. The streams are random runs in the
 * order the engine and the dashboard emit them (runStreams.ts, over the
 * request lifecycle's generator), whole, cut short by an abandoned reporter or
 * a restart, and with the spans a reporter with a full queue drops. As on the
 * wire, the browser takes the JSON the hub stored (the hub names the trip's
 * phase in the event) in random batches.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RunTracker } from '#server/dashboard/hub/runTracker.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun, type RunModel } from '#shared/runView/runModel.ts';
import type { RunLevel } from '#shared/runView/runFold.ts';
import type { RunEvent, RunState, SeqEvent } from '#shared/protocol/protocol.ts';
import { generateRunStream, runStreamSpecArb } from './runStreams.ts';

/** The run-level state, as the two sides may compare it (the browser's breaker also holds when it tripped). */
function runLevelOf(s: RunState | RunModel): RunLevel {
  const { status, startedAtMs, counts, breaker, verdict, interruptCause } = s;
  return {
    status,
    startedAtMs,
    counts,
    breaker: { tripped: breaker.tripped, cause: breaker.cause, stoppedBy: breaker.stoppedBy ?? null },
    verdict,
    ...(interruptCause ? { interruptCause } : {}),
  };
}

/** Feeds `events` to the hub one by one and to the browser in batches cut at `cuts`; compares after each batch. */
function feed(events: RunEvent[], cuts: number[]): { hub: RunTracker; web: RunModel } {
  const hub = new RunTracker('r', null);
  let web = emptyRun('r');
  let at = 0;
  for (const cut of [...cuts, events.length]) {
    const to = Math.min(events.length, at + cut);
    const batch: SeqEvent[] = [];
    for (let k = at; k < to; k++) {
      hub.apply(k + 1, events[k]);
      batch.push({ seq: k + 1, event: JSON.parse(JSON.stringify(events[k])) as RunEvent });
    }
    web = applyEvents(web, batch);
    at = to;
    expect(runLevelOf(web), `after event ${at}`).toEqual(runLevelOf(hub.state));
  }
  return { hub, web };
}

const cutsArb = fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 30 });

describe('the hub and the browser fold the run-level events alike', () => {
  it('status, counts, breaker, verdict and interrupt cause, at every batch of a run as the engine and dashboard emit it', () => {
    fc.assert(
      fc.property(runStreamSpecArb, cutsArb, (spec, cuts) => {
        const { hub } = feed(generateRunStream(spec), cuts);
        // Every stream ends with the dashboard's closing status.
        expect(hub.state.status).not.toBe('running');
        expect(hub.state.verdict).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('the generated runs hold what the comparison needs', () => {
    const runs = fc.sample(runStreamSpecArb, { seed: 1, numRuns: 300 }).map(generateRunStream);
    const has = (p: (run: RunEvent[]) => boolean) => runs.some(p);
    const types = (run: RunEvent[]) => run.map((e) => e.type);
    // A trip the hub names a phase for, and a summary whose cause lacks it.
    expect(
      has(
        (run) =>
          types(run).includes('telemetry') &&
          types(run).includes('breaker.tripped') &&
          types(run).includes('run.finished'),
      ),
    ).toBe(true);
    // A stop rule without a cause, and a timeouts rule whose live events were dropped while the summary says it.
    expect(has((run) => types(run).includes('run.stopped') && !types(run).includes('breaker.tripped'))).toBe(true);
    expect(
      has(
        (run) =>
          !types(run).includes('run.stopped') &&
          run.some((e) => e.type === 'run.finished' && e.summary.stoppedBy !== null),
      ),
    ).toBe(true);
    // A run ended without run.finished, with and without who interrupted it.
    expect(has((run) => !types(run).includes('run.finished') && run.at(-1)?.type === 'run.status')).toBe(true);
    expect(has((run) => run.some((e) => e.type === 'run.status' && e.interruptCause === 'dashboard'))).toBe(true);
    expect(has((run) => types(run).includes('accuracy.item'))).toBe(true);
  });
});
