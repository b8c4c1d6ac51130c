/**
 * The stop is real and bounded (docs/design.md#bounded-stop), in process
 * against loopback servers: connections opened as vLLM-Omni opens them; the
 * in-flight abort at a trip is the sweep's doing, not the requests' own
 * timers; the fallback ends a run whose sockets the pool did not close; no
 * retry is sent once the breaker stopped the run; an interrupt records who
 * stopped the run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { groupedConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { runDispatch } from '#server/engine/dispatch/dispatch.ts';
import { CLEANUP_DEADLINE_MS } from '#server/engine/transport/http/dispatcher.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import { Cancellation } from '#server/engine/transport/http/cancellation.ts';
import { runRequest } from '#server/engine/dispatch/requestRunner.ts';
import { CancelledError } from '#server/engine/transport/http/reasons.ts';
import { CANCELLED_ATTEMPT_BOUND_MS } from '#server/engine/transport/http/attempt.ts';
import { harness } from '#test/helpers/dispatchHarness.ts';

let server: TestServer | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(url: string, over: Partial<FlatBenchConfig> = {}): RunConfig {
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-stop-'));
  dirs.push(dir);
  return groupedConfig({
    runId: 'stop',
    baseUrl: url,
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'm',
    dataset: { name: 'random', inputLen: 8, outputLen: 8 },
    numPrompts: 12,
    maxConcurrency: 3,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['ttft', 'e2el'],
    metricPercentiles: [99],
    timeouts: { totalS: 5 },
    failFast: false,
    thresholds: [],
    save: { dir, detailed: true, filename: 'r.json' },
    // These tests count the target's sockets: the identity read (its own two) is tested apart.
    serverIdentity: false,
    ...over,
  });
}

const idx = (id: string): number => Number(id.split('-').pop());
const busyWait = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Hold the event loop so that several timers expire together.
  }
};

describe('connections as vLLM-Omni opens them', () => {
  it('one TCP connection per request by default; at most max_concurrency with keep_alive', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }));
    const a = await runBenchmark(config(server.url));
    expect(a.summary.verdict).toBe('passed');
    expect(a.result.connection_mode).toBe('per_request');
    expect(server.closedAtMs.length + server.openSockets).toBe(12);
    await server.close();

    server = await startSseServer(() => ({ kind: 'ok', tokens: 3 }));
    const b = await runBenchmark(config(server.url, { connectionMode: 'keep_alive' }));
    expect(b.summary.verdict).toBe('passed');
    expect(b.result.connection_mode).toBe('keep_alive');
    const connections = server.closedAtMs.length + server.openSockets;
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(connections).toBeLessThanOrEqual(3);
  });
});

describe('the in-flight abort at a trip', () => {
  // Request 0 hangs and trips the breaker at 1 s; 1–3 hang too but were sent ≥ 500 ms later, so
  // their own 1 s deadlines lie ≥ 500 ms after the trip: only the sweep can end them in time.
  const staggered = [0, 0.5, 0.6, 0.7];

  it('ends requests whose deadlines lie well after the trip as cancelled_after_timeout, sockets closed at once', async () => {
    server = await startSseServer(() => ({ kind: 'hang-mid-stream', events: 2 }));
    const h = harness(server.url, staggered, { failFast: true, totalS: 1, connectionMode: 'per_request' });
    const r = await runDispatch(h.input);
    const tripAt = performance.now() - r.durationS * 1000 + h.events.find((e) => e.type === 'breaker.tripped')!.t;
    expect([...r.statuses]).toEqual([
      'timed_out',
      'cancelled_after_timeout',
      'cancelled_after_timeout',
      'cancelled_after_timeout',
    ]);
    expect(r.cleanupForcedSockets).toBe(0);
    expect(server.arrivals).toHaveLength(4);
    // The server hears the closes a moment later: wait for them (bounded), then check when they happened.
    for (let i = 0; i < 50 && server.closedAtMs.length < 4; i++) await new Promise((res) => setTimeout(res, 10));
    expect(server.closedAtMs).toHaveLength(4);
    // Every socket closed on the server's side within 100 ms of the trip (none waited for its own timer).
    for (const t of server.closedAtMs) expect(t - tripAt).toBeLessThan(100);
    await h.agent.destroy();
  });

  it('a pool that never closes its sockets: the fallback destroys them at the deadline and counts them', async () => {
    server = await startSseServer(() => ({ kind: 'hang-mid-stream', events: 2 }));
    const h = harness(server.url, staggered, {
      failFast: true,
      totalS: 1,
      connectionMode: 'per_request',
      skipPoolDestroy: true,
    });
    const started = performance.now();
    const r = await runDispatch(h.input);
    const elapsedMs = performance.now() - started;
    expect(r.breakerTripped).toBe(true);
    expect(r.cleanupForcedSockets).toBeGreaterThanOrEqual(3);
    expect([...r.statuses].slice(1)).toEqual([
      'cancelled_after_timeout',
      'cancelled_after_timeout',
      'cancelled_after_timeout',
    ]);
    // Trip at ~1 s, then the deadline: the run ended well before the staggered requests' own deadlines (1.7 s).
    expect(elapsedMs).toBeLessThan(1000 + CLEANUP_DEADLINE_MS + 400);
    expect(h.events.some((e) => e.type === 'run.warning' && /destroyed one by one/.test(e.message))).toBe(true);
    await h.agent.destroy();
  });
  it('a signal during that cleanup cuts its deadline short; the run stays failed closed', async () => {
    server = await startSseServer(() => ({ kind: 'hang-mid-stream', events: 2 }));
    const interrupt = new AbortController();
    const h = harness(server.url, staggered, {
      failFast: true,
      totalS: 1,
      connectionMode: 'per_request',
      skipPoolDestroy: true, // nothing closes by itself: only the deadline, or the signal, ends the cleanup
      interrupt: interrupt.signal,
    });
    // The signal comes 50 ms after the trip, inside the 500 ms cleanup deadline.
    let trippedAt = 0;
    const watch = setInterval(() => {
      if (trippedAt || !h.events.some((e) => e.type === 'breaker.tripped')) return;
      trippedAt = performance.now();
      setTimeout(() => interrupt.abort('signal'), 50);
    }, 2);
    try {
      const r = await runDispatch(h.input);
      const afterTripMs = performance.now() - trippedAt;
      expect(r.breakerTripped).toBe(true);
      expect(r.interrupted).toBe(false); // the trip came first: failed closed, not interrupted
      expect(r.cleanupForcedSockets).toBeGreaterThanOrEqual(3);
      // Without the signal this waits CLEANUP_DEADLINE_MS (500) before the fallback; with it, ~50 ms.
      expect(afterTripMs).toBeLessThan(CLEANUP_DEADLINE_MS - 200);
    } finally {
      clearInterval(watch);
      await h.agent.destroy();
    }
  });
});

describe('no send after the trip', () => {
  it('a retry whose back-off ends in the timers phase that tripped the breaker is not sent', async () => {
    let arrival0 = 0;
    server = await startSseServer(async (a) => {
      if (idx(a.requestId) === 0) {
        arrival0 = a.atMs;
        return { kind: 'hang' };
      }
      if (idx(a.requestId) === 1 && a.n <= 1) {
        // Reset request 1 just before request 0's timeout; its 100 ms back-off then expires just after it.
        await new Promise((r) => setTimeout(r, Math.max(0, arrival0 + 930 - performance.now())));
        // Hold the loop over both expiries, so they fire in one timers phase: the timeout first.
        setTimeout(() => busyWait(250), 30);
        return { kind: 'reset' };
      }
      return { kind: 'ok', tokens: 2 };
    });
    const h = harness(server.url, [0, 0.01], { failFast: true, totalS: 1 });
    const r = await runDispatch(h.input);
    expect(r.breakerTripped).toBe(true);
    expect(r.cause?.requestIndex).toBe(0);
    expect(
      h.events.filter((e) => e.type === 'request.sent' && e.index === 1).map((e) => (e as { attempt: number }).attempt),
    ).toEqual([1]);
    expect(r.statuses.at(1)).toBe('cancelled_after_timeout');
    expect(r.records.at(1)!.attempts).toBe(1);
    expect(server.arrivals.filter((a) => idx(a.requestId) === 1)).toHaveLength(1);
    await h.agent.destroy();
  });
});

describe('interrupts', () => {
  it("the dashboard's Cancel: in flight cancelled, queued not_dispatched with attempts 0, interrupt_cause dashboard", async () => {
    server = await startSseServer(() => ({ kind: 'hang-after-headers' }));
    const ctrl = new AbortController();
    const events: BenchEvent[] = [];
    const cfg = config(server.url, { timeouts: { totalS: 30 } });
    const run = runBenchmark(cfg, { signal: ctrl.signal, onEvent: (e) => events.push(e) });
    await server.waitForArrivals(3);
    const t = performance.now();
    ctrl.abort('dashboard');
    const out = await run;
    expect(performance.now() - t).toBeLessThan(2000);
    expect(out.summary.verdict).toBe('interrupted');
    expect(out.result.interrupt_cause).toBe('dashboard');
    expect([...out.statuses].slice(0, 3)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect([...out.statuses].slice(3).every((s) => s === 'not_dispatched')).toBe(true);
    expect(out.summary.counts).toMatchObject({ cancelled: 12, unsent: 9, failed: 12, errored: 0 });
    expect(out.result.cancelled_requests).toBe(12);
    expect([...out.records].slice(3).every((r) => r.attempts === 0)).toBe(true);
    // The events the dashboard stores (CSV, trace and UI read them) say the same.
    // The 9 unsent are one event (docs/design.md#bulk-unsent), not one each.
    expect(events.filter((e) => e.type === 'request.unsent')).toEqual([]);
    expect(events.filter((e) => e.type === 'requests.unsent')).toMatchObject([
      { from: 3, to: 12, stoppedBy: 'interrupt', error: out.records.at(3)!.error },
    ]);
    const file = JSON.parse(readFileSync(out.resultFile!, 'utf8'));
    expect(file.interrupt_cause).toBe('dashboard');
    expect(file.cleanup_forced_sockets).toBe(0);
  });
});

describe('a cancelled attempt keeps a bound', () => {
  it('bulk-cancelled with no sweep at all, the attempt still ends (cancelled) within its bound', async () => {
    server = await startSseServer(() => ({ kind: 'hang-mid-stream', events: 2 }));
    const h = harness(server.url, [0], { totalS: 30 });
    const cancel = new Cancellation();
    const job = { index: 0, requestId: 't-0', headers: { 'x-request-id': 't-0' }, body: '{}', promptLen: 1 };
    const ended = runRequest(h.input.target, job, cancel, {});
    await server.waitForArrivals(1);
    const t = performance.now();
    cancel.cancel(new CancelledError('breaker'), true); // bulk: relies on a sweep that never comes
    const end = await ended;
    const ms = performance.now() - t;
    expect(end.status).toBe('cancelled_after_timeout');
    expect(ms).toBeGreaterThanOrEqual(CANCELLED_ATTEMPT_BOUND_MS - 20);
    expect(ms).toBeLessThan(CANCELLED_ATTEMPT_BOUND_MS + 400);
    await h.agent.destroy();
  });
});
