import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { runDispatch } from '#server/engine/dispatch/dispatch.ts';
import { arrivalOffsets } from '#server/engine/schedule/arrivals.ts';
import { harness, indexOf } from '#test/helpers/dispatchHarness.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const count = (xs: string[], s: string): number => xs.filter((x) => x === s).length;

describe('dispatch with the fail-fast breaker', () => {
  it('off by default: every request is sent and each hang times out on its own (the waves)', async () => {
    server = await startSseServer((a) => (indexOf(a.requestId) < 3 ? { kind: 'ok' } : { kind: 'hang' }));
    const h = harness(server.url, arrivalOffsets(8, { mode: 'immediate' }), { maxConcurrency: 2, totalS: 0.5 });
    const r = await runDispatch(h.input);
    await h.agent.destroy();
    expect(server.arrivals.length).toBe(8);
    expect(count([...r.statuses], 'completed')).toBe(3);
    expect(count([...r.statuses], 'timed_out')).toBe(5);
    expect(r.breakerTripped).toBe(false);
    expect(h.events.some((e) => e.type === 'breaker.tripped')).toBe(false);
  });

  it('on: the first timeout stops everything; no request is sent after the trip', async () => {
    server = await startSseServer((a) => (indexOf(a.requestId) < 3 ? { kind: 'ok', tokens: 3 } : { kind: 'hang' }));
    const h = harness(server.url, arrivalOffsets(20, { mode: 'immediate' }), {
      maxConcurrency: 3,
      totalS: 0.5,
      failFast: true,
    });
    const r = await runDispatch(h.input);
    const arrivedAtEnd = server.arrivals.length;
    await h.agent.destroy();
    await sleep(100);
    expect(server.arrivals.length).toBe(arrivedAtEnd); // nothing later either
    // 0-2 complete, then 3-5 hang in the three slots; 3 was sent first and times out first.
    expect([...r.statuses].slice(0, 3)).toEqual(['completed', 'completed', 'completed']);
    expect(r.cause?.requestIndex).toBe(3);
    expect(r.cause?.kind).toBe('total');
    expect(r.statuses.at(3)).toBe('timed_out');
    const sent = server.arrivals.map((a) => indexOf(a.requestId));
    expect(sent.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const i of [4, 5]) expect(['cancelled_after_timeout', 'timed_out']).toContain(r.statuses.at(i));
    for (let i = 6; i < 20; i++) expect(r.statuses.at(i)).toBe('not_dispatched');
    // Completed outputs kept in dataset order; placeholders carry an error.
    expect(r.records.at(0)!.success).toBe(true);
    expect(r.records.at(10)!.error).toMatch(/not dispatched/);
    // Ended records keep what the metrics and the result read, not the in-stream diagnostics; the unsent
    // ones, the run's tail, were ended together in one event (docs/design.md#bulk-unsent).
    expect(r.records.at(0)).not.toHaveProperty('stageMetrics');
    expect(h.events.filter((e) => e.type === 'request.unsent')).toEqual([]);
    expect(h.events.filter((e) => e.type === 'requests.unsent')).toMatchObject([
      { from: 6, to: 20, stoppedBy: 'breaker', error: r.records.at(10)!.error },
    ]);
    const trip = h.events.find((e) => e.type === 'breaker.tripped');
    expect(trip && trip.type === 'breaker.tripped' && trip.cause.requestId).toBe('t-3');
    expect(trip).toMatchObject({ inFlight: 3, queued: 14 }); // 3-5 in the slots, 6-19 waiting
    const lastArrival = Math.max(...server.arrivals.map((a) => a.atMs));
    const tripAt = server.arrivals.find((a) => a.requestId === 't-3')!.atMs + 500;
    expect(lastArrival).toBeLessThan(tripAt);
  });

  it('breaker.tripped counts what was in flight and queued when the first timeout fired, before the queue was emptied', async () => {
    server = await startSseServer(() => ({ kind: 'hang' }));
    const h = harness(server.url, arrivalOffsets(6, { mode: 'immediate' }), {
      maxConcurrency: 2,
      totalS: 0.2,
      failFast: true,
    });
    const r = await runDispatch(h.input);
    await h.agent.destroy();
    // 0 and 1 hold the two slots (the one that timed out still counts: it had not settled), 2-5 wait for a slot.
    const trips = h.events.filter((e) => e.type === 'breaker.tripped');
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({ inFlight: 2, queued: 4 });
    expect([...r.statuses].slice(2)).toEqual(['not_dispatched', 'not_dispatched', 'not_dispatched', 'not_dispatched']);
    expect(server.arrivals.length).toBe(2);
  });

  it('finite rate 1 req/s × 300: finishes within timeout + 1 s of the first hang', async () => {
    server = await startSseServer(() => ({ kind: 'hang' }));
    const offsets = arrivalOffsets(300, { mode: 'rate', rate: 1, burstiness: 1, seed: 0 });
    const h = harness(server.url, offsets, { totalS: 0.3, failFast: true });
    const r = await runDispatch(h.input);
    const end = performance.now();
    await h.agent.destroy();
    // Poisson gaps can be shorter than the timeout, so a few requests may be sent before the trip — none after it.
    const tripAt = server.arrivals[0].atMs + 300;
    expect(server.arrivals.every((a) => a.atMs < tripAt)).toBe(true);
    expect(server.arrivals.length).toBeLessThan(10);
    expect(end - server.arrivals[0].atMs).toBeLessThan(300 + 1000);
    expect(r.statuses.at(0)).toBe('timed_out');
    expect(r.cause?.requestIndex).toBe(0);
    expect(count([...r.statuses], 'not_dispatched')).toBe(300 - server.arrivals.length);
  });

  it('self-timed trace whose last request is at +1 h: finishes within timeout + 1 s of the first hang', async () => {
    server = await startSseServer((a) => (a.requestId === 't-0' ? { kind: 'ok' } : { kind: 'hang' }));
    const h = harness(server.url, arrivalOffsets(3, { mode: 'self-timed', timestamps: [0, 0.05, 3600] }), {
      totalS: 0.5,
      failFast: true,
    });
    const t0 = performance.now();
    const r = await runDispatch(h.input);
    const end = performance.now();
    await h.agent.destroy();
    expect([...r.statuses]).toEqual(['completed', 'timed_out', 'not_dispatched']);
    expect(end - server.arrivals[1].atMs).toBeLessThan(500 + 1000);
    expect(end - t0).toBeLessThan(2200);
  });

  it('an interrupt aborts in flight and skips the queue', async () => {
    server = await startSseServer(() => ({ kind: 'hang-after-headers' }));
    const ctrl = new AbortController();
    const h = harness(server.url, arrivalOffsets(6, { mode: 'immediate' }), {
      maxConcurrency: 2,
      totalS: 30,
      interrupt: ctrl.signal,
    });
    setTimeout(() => ctrl.abort(), 100);
    const r = await runDispatch(h.input);
    await h.agent.destroy();
    expect(r.interrupted).toBe(true);
    expect([...r.statuses].slice(0, 2)).toEqual(['cancelled', 'cancelled']);
    expect(r.records.at(0)!.error).toMatch(/interrupted/);
    expect([...r.statuses].slice(2)).toEqual(['not_dispatched', 'not_dispatched', 'not_dispatched', 'not_dispatched']);
    expect(server.arrivals.length).toBe(2);
  });

  it('emits the request lifecycle events', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3, audioChunks: 1 }));
    const h = harness(server.url, [0], {});
    await runDispatch(h.input);
    await h.agent.destroy();
    expect(h.events[0].type).toBe('request.queued');
    expect(h.events[1].type).toBe('request.sent');
    expect(h.events.at(-1)!.type).toBe('request.completed');
    const types = new Set(h.events.map((e) => e.type));
    for (const t of [
      'request.queued',
      'request.sent',
      'request.first_token',
      'request.first_audio',
      'request.progress',
      'request.completed',
    ])
      expect(types.has(t as never)).toBe(true);
  });
});
