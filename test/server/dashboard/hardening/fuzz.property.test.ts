/**
 * Fuzzing the two endpoints any process on the machine can post to: arbitrary
 * JSON values and mutated event shapes. The dashboard never answers 5xx, never
 * dies (an exception in the writer's timer would surface as an unhandled error
 * of this file), and never half-applies: a refused events batch changes
 * nothing, an accepted one adds exactly its events; each ingest line is
 * counted once and exactly the accepted ones reach the run.
 */
import { sqliteOf, storedRowCount } from '#test/helpers/sqliteStore.ts';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';

const sample = hangRunEvents('fz');
const benchShapes = sample.filter((e) => e.type !== 'telemetry' && e.type !== 'run.finished');
const finished = sample.find((e) => e.type === 'run.finished')!;
const telemetryShapes = sample.flatMap((e) => (e.type === 'telemetry' ? [e.event] : []));
telemetryShapes.push(
  { v: 1, ts: 5, type: 'worker.busy', workerId: 0, opId: 1 },
  { v: 1, ts: 5, type: 'worker.idle', workerId: 0 },
  { v: 1, ts: 5, type: 'stage.progress', requestId: 'fz-0', stage: 'talker', count: 3 },
  { v: 1, ts: 5, type: 'telemetry.dropped', count: 2 },
  { v: 1, ts: 5, type: 'watchdog.recovered', workerId: 0, opId: 5, requestIds: ['fz-2'], stalledS: 1 },
  { v: 1, ts: 5, type: 'c2w.op.end', workerId: 0, opId: 5, requestIds: ['fz-2'], durationMs: 9, ok: true },
);

/** A valid shape with one field (possibly nested) replaced, removed, or kept. */
function mutated(shapes: readonly object[]): fc.Arbitrary<unknown> {
  return fc
    .tuple(fc.constantFrom(...shapes), fc.nat(), fc.oneof(fc.jsonValue(), fc.constant(undefined)), fc.nat(3))
    .map(([shape, k, value, mode]) => {
      const copy = structuredClone(shape) as Record<string, unknown>;
      if (mode === 0) return copy; // kept valid
      // Walk down to a nested object at random, then change one of its keys.
      let obj = copy;
      for (let depth = 0; depth < 2; depth++) {
        const nested = Object.values(obj).filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
        if (nested.length === 0 || (k >> depth) % 2 === 0) break;
        obj = nested[k % nested.length] as Record<string, unknown>;
      }
      const keys = Object.keys(obj);
      const key = keys[k % keys.length];
      if (value === undefined) delete obj[key];
      else obj[key] = value;
      return copy;
    });
}

const anyEvent = fc.oneof(
  { weight: 3, arbitrary: mutated(benchShapes) },
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: fc.constant(finished as unknown) },
);

let runs = 0;
function liveRun(app: FastifyInstance): string {
  const id = `fz-run-${++runs}`;
  sqliteOf(app.store).runs.insertRun({
    id,
    source: 'cli',
    status: 'running',
    label: null,
    model: null,
    target: null,
    dataset: null,
    numPrompts: null,
    maxConcurrency: null,
    requestRate: null,
    failFast: false,
    createdAtMs: 0,
    metadata: {},
  });
  return id;
}

function snapshot(app: FastifyInstance, id: string) {
  sqliteOf(app.store).writer.flush(); // surfaces a bad effect now, inside the property, not later in a timer
  return {
    state: structuredClone(app.hub.tracker(id)?.state),
    stored: sqliteOf(app.store).runs.eventsAfter(id, 0, 1_000_000).length,
    rows: storedRowCount(app.store, id),
  };
}

describe('fuzz: POST /api/runs/:id/events', () => {
  // One dashboard for the file: the ingest property below counts on the run this one leaves live (with a
  // second live run, a line without a request id joins neither; alone, its run would take it).
  it('answers 200 or 400, and a batch is applied whole or not at all', async ({ sharedApp: app }) => {
    let id = '';
    const fresh = async () => {
      const r = await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: `fz-ext-${++runs}` } });
      expect(r.statusCode).toBe(201);
      id = r.json().id;
    };
    await fresh();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(anyEvent, { maxLength: 12 }), fc.jsonValue()), async (events) => {
        if (!app.hub.isActive(id)) await fresh();
        const before = snapshot(app, id);
        const r = await app.inject({ method: 'POST', url: `/api/runs/${id}/events`, payload: { events } });
        expect([200, 400]).toContain(r.statusCode);
        const after = snapshot(app, id);
        if (r.statusCode === 400) {
          expect(r.json().code).toBe('API_BAD_REQUEST');
          expect(after).toEqual(before);
        } else {
          const n = (events as unknown[]).length;
          const ended = (events as RunEvent[]).some((e) => e.type === 'run.finished');
          // Ending appends the closing run.status too.
          expect(after.stored).toBe(before.stored + n + (ended ? 1 : 0));
          expect(r.json().lastSeq).toBe((before.state?.seq ?? 0) + n);
        }
      }),
      { numRuns: 150, seed: 12 },
    );
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
  });
});

describe('fuzz: POST /api/ingest', () => {
  const line = fc.oneof(
    { weight: 3, arbitrary: mutated(telemetryShapes).map((v) => JSON.stringify(v) ?? '') },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
  it('counts every line once; exactly the accepted lines reach the run', async ({ sharedApp: app }) => {
    const id = liveRun(app);
    app.hub.open(id, null);
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 15 }), fc.boolean(), async (lines, joined) => {
        const before = snapshot(app, id);
        const body = lines.join('\n');
        const r = await app.inject({
          method: 'POST',
          url: `/api/ingest${joined ? `?runId=${id}` : ''}`,
          headers: { 'content-type': 'application/x-ndjson' },
          payload: body,
        });
        expect(r.statusCode).toBe(200);
        const reply = r.json() as { accepted: number; rejected: number; unjoined: number };
        const nonEmpty = body.split('\n').filter((l) => l.trim()).length;
        expect(reply.accepted + reply.rejected + reply.unjoined).toBe(nonEmpty);
        const after = snapshot(app, id);
        if (joined) expect(reply.unjoined).toBe(0);
        expect(after.stored - before.stored).toBe(joined ? reply.accepted : 0);
      }),
      { numRuns: 150, seed: 7 },
    );
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
  });
});
