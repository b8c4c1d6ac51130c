import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startSseServer, type Behaviour, type TestServer } from '#test/helpers/sseServer.ts';
import { runDispatch } from '#server/engine/dispatch/dispatch.ts';
import { arrivalOffsets } from '#server/engine/schedule/arrivals.ts';
import { countStatuses } from '#server/engine/records/counts.ts';
import { harness } from '#test/helpers/dispatchHarness.ts';

// One server for all runs; each run's requests carry a unique prefix so behaviours and arrivals are per run.
let server: TestServer;
const plans = new Map<string, Behaviour[]>();
beforeAll(async () => {
  server = await startSseServer((a) => {
    const [run, i] = a.requestId.split(':');
    return plans.get(run)?.[Number(i)] ?? { kind: 'ok' };
  });
});
afterAll(async () => {
  await server.close();
});

const behaviour = fc.constantFrom<Behaviour>(
  { kind: 'ok', tokens: 2 },
  { kind: 'ok', tokens: 2 },
  { kind: 'hang' },
  { kind: 'hang-after-headers' },
  { kind: 'reset' },
  { kind: 'status', status: 500 },
);

let runNo = 0;

describe('dispatch invariants under random target behaviour (fail-fast on)', () => {
  it('never sends after the trip, never sends a not_dispatched request, counts add up', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(behaviour, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        async (plan, conc) => {
          const run = `p${runNo++}`;
          plans.set(run, plan);
          const h = harness(server.url, arrivalOffsets(plan.length, { mode: 'immediate' }), {
            maxConcurrency: conc,
            totalS: 0.12,
            failFast: true,
          });
          h.input.requestId = (i) => `${run}:${i}`;
          h.input.prepare = async (i) => ({
            index: i,
            requestId: `${run}:${i}`,
            headers: { 'x-request-id': `${run}:${i}` },
            body: '{}',
            promptLen: 1,
          });
          const r = await runDispatch(h.input);
          await h.agent.destroy();
          const seen = server.arrivals.filter((a) => a.requestId.startsWith(`${run}:`));
          const seenIdx = new Set(seen.map((a) => Number(a.requestId.split(':')[1])));
          // Every request ended in exactly one state; unsent ones never reached the server.
          // (The converse need not hold: on a loaded machine a request can time out before the server reads it.)
          expect([...r.statuses]).toHaveLength(plan.length);
          [...r.statuses].forEach((s, i) => {
            if (s === 'not_dispatched') expect(seenIdx.has(i)).toBe(false);
            if (s === 'completed') expect(seenIdx.has(i)).toBe(true);
          });
          const c = countStatuses([...r.statuses], r.stoppedBy);
          expect(c.completed + c.failed).toBe(plan.length);
          expect(c.timedOut + c.cancelledAfterTimeout + c.cancelled + c.errored).toBe(c.failed);
          const hangs = plan.some((b) => b.kind === 'hang' || b.kind === 'hang-after-headers');
          if (r.breakerTripped) {
            expect(r.statuses.at(r.cause!.requestIndex)).toBe('timed_out');
            // Nothing was sent after the trip. (The send time plus elapsed is no
            // bound: the attempt clock starts a little after the send event, by
            // more than a few ms on a loaded machine.) Sends are ordered with the
            // trip event in the one event stream.
            const tripAt = h.events.findIndex((e) => e.type === 'breaker.tripped');
            expect(tripAt).toBeGreaterThanOrEqual(0);
            expect(h.events.slice(tripAt).filter((e) => e.type === 'request.sent')).toEqual([]);
          } else {
            expect([...r.statuses].includes('timed_out')).toBe(false);
            expect([...r.statuses].includes('not_dispatched')).toBe(false);
          }
          // A hang that got sent always trips the breaker.
          if (
            hangs &&
            [...r.statuses].some(
              (s, i) => seenIdx.has(i) && (plan[i].kind === 'hang' || plan[i].kind === 'hang-after-headers'),
            )
          ) {
            expect(r.breakerTripped).toBe(true);
          }
          plans.delete(run);
        },
      ),
      { numRuns: 15 },
    );
  });
});
