/**
 * Random run event streams with their run-level events, in the order the
 * engine and the dashboard emit them, for the property test of the run fold
 * (shared/runView/runFold.ts). The request events come from the request
 * lifecycle's generator (test/shared/requests/lifecycleStreams.ts); around
 * them:
 * - the dashboard opens the run with `run.status` running (run manager,
 *   reported runs);
 * - a trip is a timeouts rule's (`breaker.tripped`, then `run.stopped` at
 *   once: server/engine/dispatch/runStop.ts) or another rule's
 *   (`run.stopped` alone); before it, the target's telemetry may have placed
 *   the cause's request in a phase (the hub names it in the event);
 * - a run the engine finished may transcribe (`accuracy.*`) and warn, then
 *   `run.finished` (its summary's cause a copy without the dashboard's
 *   phase, as a reporting CLI sends it), then the dashboard's closing
 *   `run.status` (server/dashboard/runs/finalize.ts);
 * - a run abandoned by its reporter or found `running` after a restart ends
 *   part-way with `run.status` interrupted, no `run.finished`;
 * - a reporter with a full queue drops spans of the engine's events.
 */
import fc from 'fast-check';
import type { BenchEvent, RequestOutcome, RunEvent, RunSummary } from '#shared/protocol/protocol.ts';
import type { StoppedBy } from '#shared/config/stopRules.ts';
import type { BreakerCause, InterruptCause, Verdict } from '#shared/types.ts';
import { countOutcomes } from '#shared/requests/outcomes.ts';
import { generateStream, streamSpecArb, withDrops, type StreamSpec } from '../requests/lifecycleStreams.ts';

export interface RunStreamSpec {
  requests: StreamSpec;
  /** A trip is a timeouts rule's (with its cause) or another rule's (`errors>=1`, no cause). */
  rule: 'timeouts' | 'errors';
  /** Telemetry names the cause's request in a phase before the trip. */
  phaseKnown: boolean;
  end: 'finished' | 'abandoned' | 'restarted';
  /** Where an abandoned or restarted run's stream stops (a fraction of its engine events). */
  cutAt: number;
  accuracy: boolean;
  /** Spans of the engine's events a reporter dropped (none when empty). */
  drops: number[];
}

export const runStreamSpecArb: fc.Arbitrary<RunStreamSpec> = fc.record({
  requests: streamSpecArb,
  rule: fc.constantFrom<RunStreamSpec['rule']>('timeouts', 'errors'),
  phaseKnown: fc.boolean(),
  end: fc.constantFrom<RunStreamSpec['end']>('finished', 'finished', 'abandoned', 'restarted'),
  cutAt: fc.double({ min: 0, max: 1, noNaN: true }),
  accuracy: fc.boolean(),
  drops: fc.oneof(fc.constant<number[]>([]), fc.array(fc.nat(), { minLength: 2, maxLength: 8 })),
});

const stoppedBy = (kind: 'timeouts' | 'errors', t: number, cause: BreakerCause | null): StoppedBy => ({
  kind,
  rule: `${kind}>=1`,
  atS: t / 1000,
  value: 1,
  requests: cause ? [{ index: cause.requestIndex, requestId: cause.requestId }] : [],
  omitted: 0,
});

/** The engine's events of the run: the request stream with each trip as the spec's rule reports it. */
function engineEvents(spec: RunStreamSpec): { events: BenchEvent[]; phases: Map<string, string> } {
  const events: BenchEvent[] = [];
  const phases = new Map<string, string>();
  for (const e of generateStream(spec.requests)) {
    if (e.type !== 'breaker.tripped') {
      events.push(e);
      continue;
    }
    if (spec.phaseKnown) phases.set(e.cause.requestId, 'hift');
    if (spec.rule === 'timeouts') events.push(e);
    const cause = spec.rule === 'timeouts' ? e.cause : null;
    events.push({
      type: 'run.stopped',
      t: e.t,
      stoppedBy: stoppedBy(spec.rule, e.t, cause),
      inFlight: e.inFlight,
      queued: e.queued,
    });
  }
  return { events, phases };
}

/** What the engine says at the end: counts by the one rule, the verdict, the trip. */
function summaryOf(spec: RunStreamSpec, events: BenchEvent[]): RunSummary {
  const ended: RequestOutcome[] = [];
  for (const e of events) if ('outcome' in e) ended.push(e.outcome);
  const counts = countOutcomes(spec.requests.n, ended);
  const trip = events.find((e) => e.type === 'breaker.tripped');
  const stop = events.find((e) => e.type === 'run.stopped');
  const verdict: Verdict =
    spec.requests.stop === 'never_started'
      ? 'errored'
      : stop
        ? 'failed_closed'
        : spec.requests.stop === 'interrupt'
          ? 'interrupted'
          : counts.completed === counts.total
            ? 'passed'
            : counts.timedOut > 0
              ? 'failed_closed'
              : 'failed';
  return {
    verdict,
    verdictReasons: [],
    counts,
    durationS: 1,
    breakerTripped: stop !== undefined,
    // A copy, as a reporting CLI's JSON carries it: the engine never saw the dashboard's phase.
    cause: trip ? { ...trip.cause, lastPhase: undefined } : null,
    stoppedBy: stop ? structuredClone(stop.stoppedBy) : null,
    metrics: {},
  };
}

/** The run's whole numbered stream as the hub takes it (the dashboard's own events and telemetry included). */
export function generateRunStream(spec: RunStreamSpec): RunEvent[] {
  const { events, phases } = engineEvents(spec);
  const summary = summaryOf(spec, events);
  let engine: RunEvent[] = withDrops(events, spec.drops);
  const out: RunEvent[] = [{ type: 'run.status', t: 0, status: 'running', message: 'launching' }];
  // Telemetry placing each cause's request in a phase, just before the events that name it.
  const withPhases: RunEvent[] = [];
  for (const e of engine) {
    if (e.type === 'breaker.tripped' && phases.has(e.cause.requestId)) {
      const requestIds = [e.cause.requestId];
      withPhases.push({
        type: 'telemetry',
        t: e.t,
        event: { v: 1, ts: 1_000_000 + e.t, type: 'c2w.op.begin', workerId: 0, opId: 1, requestIds, batchSize: 1 },
      });
      withPhases.push({
        type: 'telemetry',
        t: e.t,
        event: {
          v: 1,
          ts: 1_000_000 + e.t,
          type: 'c2w.phase',
          workerId: 0,
          opId: 1,
          requestIds,
          phase: 'hift',
          details: {},
        },
      });
    }
    withPhases.push(e);
  }
  engine = withPhases;
  const lastT = engine.reduce((t, e) => Math.max(t, e.t), 0);
  if (spec.end !== 'finished') {
    const cut = 1 + Math.floor(spec.cutAt * (engine.length - 1));
    const cause: InterruptCause | undefined = spec.end === 'abandoned' ? 'dashboard' : undefined;
    return [
      ...out,
      ...engine.slice(0, cut),
      { type: 'run.status', t: lastT + 1, status: 'interrupted', ...(cause ? { interruptCause: cause } : {}) },
    ];
  }
  out.push(...engine);
  if (spec.accuracy && spec.requests.stop !== 'never_started') {
    const n = spec.requests.n;
    out.push({ type: 'accuracy.started', t: lastT + 1, total: n, asrModel: 'whisper', bounds: [] });
    for (let i = 0; i < n; i++)
      out.push({
        type: 'accuracy.item',
        t: lastT + 2 + i,
        index: i,
        utteranceId: `u-${i}`,
        reference: 'a b',
        transcript: i % 2 ? 'a b' : null,
        wer: i % 2 ? 0 : null,
        error: i % 2 ? null : 'no audio',
      });
    out.push({ type: 'run.warning', t: lastT + n + 2, message: 'the gate read no audio for some requests' });
  }
  const endT = lastT + 2 * spec.requests.n + 3;
  out.push({ type: 'run.finished', t: endT, summary });
  const v = summary.verdict;
  const status = v === 'interrupted' ? 'interrupted' : v === 'errored' ? 'errored' : 'finished';
  out.push({ type: 'run.status', t: endT + 1, status, ...(v === 'interrupted' ? { interruptCause: 'signal' } : {}) });
  return out;
}
