/**
 * The dashboard hub's tracker and the browser's run model fold the same
 * request events through the one request fold (shared/requests/requestLifecycle.ts):
 * fed the same stream, they hold the same row for every request and the same
 * counts, at every point of the stream. The streams are random runs in the
 * order the engine emits their events (lifecycleStreams.ts), whole and with
 * the spans a reporter with a full queue drops; the browser takes them in
 * random batches, as the WebSocket delivers them.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RunTracker } from '#server/dashboard/hub/runTracker.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun, type RequestView, type RunModel } from '#shared/runView/runModel.ts';
import type { RequestRow } from '#shared/protocol/apiSchemas.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import { blankRequest, type RequestLifecycle } from '#shared/requests/requestLifecycle.ts';
import { isRequestEndStatus as isEndStatus } from '#shared/types.ts';
import { generateStream, streamSpecArb, withDrops } from './lifecycleStreams.ts';

const LIFECYCLE_KEYS = Object.keys(blankRequest(0)) as (keyof RequestLifecycle)[];

const lifecycleOf = (r: RequestLifecycle): Record<string, unknown> =>
  Object.fromEntries(LIFECYCLE_KEYS.map((k) => [k, r[k]]));

/** What the browser shows of an ended request's measurements, as the stored row names them. */
const measuredOf = (r: RequestView) => ({
  ttftS: r.outcome?.ttftS,
  e2elS: r.outcome?.e2elS,
  audioTtfpS: r.outcome?.audioTtfpS,
  promptLen: r.outcome?.promptLen,
  error: r.outcome?.error,
});

/** The hub's view of a run so far: its tracker and the rows it handed to the store. */
class HubSide {
  readonly tracker = new RunTracker('r', null);
  readonly stored = new Map<number, RequestRow>();
  private seq = 0;

  apply(e: BenchEvent): void {
    const effects = this.tracker.apply(++this.seq, e);
    if (effects.endedRow) this.stored.set(effects.endedRow.index, effects.endedRow);
  }
}

/** Compares the two sides request by request and count by count; `seen` are the events both have taken. */
function expectSame(hub: HubSide, web: RunModel, seen: BenchEvent[]): void {
  expect(web.counts).toEqual(hub.tracker.state.counts);
  expect(web.inFlight).toBe(hub.tracker.state.inFlight);
  const n = Math.max(web.requests.length, ...[...hub.stored.keys(), ...hub.tracker.requests.keys()].map((i) => i + 1));
  for (let i = 0; i < n; i++) {
    const w = web.requests[i] as RequestView | undefined;
    const live = hub.tracker.requests.get(i);
    const stored = hub.stored.get(i);
    expect(live === undefined || stored === undefined, `request ${i} both live and stored`).toBe(true);
    const row = live ?? stored;
    if (row) {
      expect(w, `request ${i} missing in the browser`).toBeDefined();
      expect(lifecycleOf(w!), `request ${i}`).toEqual(lifecycleOf(row as RequestLifecycle));
      if (stored) {
        const { ttftS, e2elS, audioTtfpS, promptLen, error } = stored;
        expect(measuredOf(w!), `request ${i}`).toEqual({ ttftS, e2elS, audioTtfpS, promptLen, error });
      } else expect(w!.outcome).toBeNull();
      continue;
    }
    // The hub keeps no row for a request only queued (nor for one nothing happened to).
    const queued = seen.findLast((e) => e.type === 'request.queued' && e.index === i);
    if (!w) expect(queued).toBeUndefined();
    else if (queued)
      expect(lifecycleOf(w)).toEqual({ ...blankRequest(i, `r-${i}`), status: 'queued', queuedT: queued.t });
    else expect(lifecycleOf(w)).toEqual(blankRequest(i));
  }
}

/** Feeds `events` to both sides: the hub one by one, the browser in batches cut at `cuts`; compares after each batch. */
function feed(events: BenchEvent[], cuts: number[]): { hub: HubSide; web: RunModel } {
  const hub = new HubSide();
  let web = emptyRun('r');
  let at = 0;
  for (const cut of [...cuts, events.length]) {
    const to = Math.min(events.length, at + cut);
    const batch = events.slice(at, to).map((event, k) => ({ seq: at + k + 1, event }));
    for (const e of events.slice(at, to)) hub.apply(e);
    web = applyEvents(web, batch);
    at = to;
    expectSame(hub, web, events.slice(0, at));
  }
  return { hub, web };
}

const cutsArb = fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 30 });

describe('the hub and the browser fold a request stream alike', () => {
  it('row by row and count by count, at every batch of a run in the order the engine emits it', () => {
    fc.assert(
      fc.property(streamSpecArb, cutsArb, (spec, cuts) => {
        const events = generateStream(spec);
        const { hub, web } = feed(events, cuts);
        // A whole run ends every request: nothing stays in flight on either side.
        expect(hub.tracker.requests.size).toBe(0);
        expect(hub.stored.size).toBe(spec.n);
        expect(web.requests.every((r) => isEndStatus(r.status))).toBe(true);
        expect(web.counts.completed + web.counts.failed).toBe(spec.n);
      }),
      { numRuns: 200 },
    );
  });

  it('alike too when a reporter with a full queue dropped spans of the stream', () => {
    fc.assert(
      fc.property(streamSpecArb, fc.array(fc.nat(), { minLength: 2, maxLength: 8 }), cutsArb, (spec, drops, cuts) => {
        feed(withDrops(generateStream(spec), drops), cuts);
      }),
      { numRuns: 200 },
    );
  });

  it('the generated runs hold what the comparison needs: retries, messages before a first token, breaker cancellations', () => {
    const runs = fc.sample(streamSpecArb, { seed: 1, numRuns: 300 }).map(generateStream);
    const has = (p: (e: BenchEvent, run: BenchEvent[], k: number) => boolean) =>
      runs.some((run) => run.some((e, k) => p(e, run, k)));
    expect(has((e) => e.type === 'request.sent' && e.attempt > 1)).toBe(true);
    expect(
      has(
        (e, run, k) =>
          e.type === 'request.progress' &&
          !run.slice(0, k).some((x) => x.type === 'request.first_token' && x.index === e.index),
      ),
    ).toBe(true);
    expect(has((e) => e.type === 'request.cancelled' && e.outcome.stoppedBy === 'breaker')).toBe(true);
    expect(has((e) => e.type === 'request.unsent' && e.outcome.stoppedBy === 'interrupt')).toBe(true);
    expect(has((e) => e.type === 'request.failed' && e.outcome.attempts === 0)).toBe(true);
  });
});
