/**
 * End to end: a fail-fast run against the real embedded repro server with a hang
 * plan, watched over /ws, then read back through REST after restarting the
 * app on the same data directory.
 */
import { afterEach, describe, expect } from 'vitest';
import type { WebSocket } from 'ws';
import type { RunEvent, SeqEvent, ServerMessage } from '#shared/protocol/protocol.ts';
import type { WatchdogStallReport } from '#shared/types.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { test as it } from '#test/helpers/fixtures.ts';

let ws: WebSocket | undefined;
afterEach(() => {
  ws?.terminate();
  ws = undefined;
});

describe('fail-fast run on the embedded repro server, watched live, found again after a restart', () => {
  it('streams the stall report with its stack, the timeout, the breaker trip and the cancellations; REST has the same after restart', async ({
    tempDir: dataDir,
    serveApp,
    newApp,
  }) => {
    let { app } = await serveApp({ dataDir, store: { flushIntervalMs: 50 }, ws: { batchMs: 50 } });
    const msgs: ServerMessage[] = [];
    ws = await app.injectWS(
      '/ws',
      { headers: { host: '127.0.0.1' } },
      { onInit: (w: unknown) => (w as WebSocket).on('message', (d) => msgs.push(JSON.parse(String(d)))) },
    );

    const spec = {
      // The first Code2Wav op hangs, so the stall comes well before the 3 s timeout even on a loaded machine.
      ...CODE2WAV_HANG.spec,
      numPrompts: 120,
      maxConcurrency: 4,
      timeouts: { totalS: 3 },
      target: {
        ...CODE2WAV_HANG.spec.target,
        watchdogTimeoutS: 0.5,
        faults: [{ phase: 'hift' as const, kind: 'block' as const, after: 1 }],
      },
    };
    const started = await app.inject({ method: 'POST', url: '/api/runs', payload: spec });
    expect(started.statusCode, started.body).toBe(201);
    const { id } = started.json();
    ws.send(JSON.stringify({ type: 'subscribe', runId: id, afterSeq: 0 }));

    const live: SeqEvent[] = [];
    const deadline = Date.now() + 25_000;
    const ended = () => live.some((e) => e.event.type === 'run.status' && e.event.status !== 'running');
    while (!ended()) {
      if (Date.now() > deadline) throw new Error(`run did not end; got ${live.length} events`);
      await new Promise((r) => setTimeout(r, 50));
      live.splice(0, live.length, ...msgs.flatMap((m) => (m.type === 'deltas' && m.runId === id ? m.events : [])));
    }
    expect(live.map((e) => e.seq)).toEqual(live.map((_, i) => i + 1)); // numbered, no gaps, no duplicates
    const find = <T extends RunEvent['type']>(t: T) =>
      live.filter((e) => e.event.type === t).map((e) => e.event as Extract<RunEvent, { type: T }>);
    const stalls = find('telemetry')
      .filter((e) => e.event.type === 'watchdog.stall')
      .map((e) => (e.event as { report: WatchdogStallReport }).report);
    expect(stalls.length).toBeGreaterThanOrEqual(1);
    expect(stalls[0].phase).toBe('hift');
    expect(stalls[0].stack.length).toBeGreaterThan(0);
    expect(stalls[0].stack[0].file).toMatch(/server\/repro\//);
    expect(find('request.timed_out').length).toBeGreaterThanOrEqual(1);
    const trip = find('breaker.tripped');
    expect(trip).toHaveLength(1);
    // Requests ended by the stop: one per end event, and each of an unsent range (one event for the tail).
    const ranges = find('requests.unsent').reduce((n, e) => n + e.to - e.from, 0);
    const cancelled = find('request.cancelled').length + find('request.unsent').length + ranges;
    expect(cancelled).toBeGreaterThan(0);
    const finished = find('run.finished')[0];
    expect(finished.summary.verdict).toBe('failed_closed');
    // Fail-fast is the stop rule timeouts>=1; liveness at the stall is on by default in dashboard runs:
    // at the first timeout the embedded server still answered health, models and a text-only request.
    expect(find('run.stopped').map((e) => e.stoppedBy.rule)).toEqual(['timeouts>=1']);
    const liveness = find('server.liveness');
    expect(liveness).toHaveLength(1);
    expect(liveness[0].report.trigger.kind).toBe('timeout');
    expect(liveness[0].report.probes.map((p) => [p.name, p.outcome])).toEqual([
      ['health', 'answered'],
      ['models', 'answered'],
      ['text', 'answered'],
    ]);
    const seqOf = (pred: (e: RunEvent) => boolean) => live.find((e) => pred(e.event))!.seq;
    expect(seqOf((e) => e.type === 'telemetry' && e.event.type === 'watchdog.stall')).toBeLessThan(
      seqOf((e) => e.type === 'run.finished'),
    );
    const lastSeq = live.at(-1)!.seq;

    ws.terminate();
    ws = undefined;
    await app.close();
    app = await newApp({ dataDir });
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d).toMatchObject({
      status: 'finished',
      verdict: 'failed_closed',
      lastSeq,
      breaker: { tripped: true, stoppedBy: { rule: 'timeouts>=1', kind: 'timeouts' } },
      counts: finished.summary.counts,
    });
    expect(d.stallReports[0].report.stack).toEqual(stalls[0].stack);
    const stored = (await app.inject({ url: `/api/runs/${id}/events?limit=50000` })).json();
    expect(stored.events.map((e: SeqEvent) => e.seq)).toEqual(live.map((e) => e.seq));
    expect(stored.events.map((e: SeqEvent) => e.event.type)).toEqual(live.map((e) => e.event.type));
    const reqs = (await app.inject({ url: `/api/runs/${id}/requests?limit=1000` })).json();
    expect(reqs.total).toBe(120);
    expect(reqs.requests.filter((r: { status: string }) => r.status === 'timed_out').length).toBe(
      finished.summary.counts.timedOut,
    );
  }, 45_000);
});

describe('the code2wav-hang preset as served', () => {
  it('finishes failed closed with a stall report well within 30 s', async ({ serveApp }) => {
    const { app } = await serveApp({ store: { flushIntervalMs: 100 } });
    const { presets } = (await app.inject({ url: '/api/presets' })).json();
    const t0 = Date.now();
    const { id } = (
      await app.inject({
        method: 'POST',
        url: '/api/runs',
        payload: presets.find((p: { id: string }) => p.id === 'code2wav-hang').spec,
      })
    ).json();
    while (app.hub.isActive(id)) {
      if (Date.now() - t0 > 30_000) throw new Error('the preset ran longer than 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const d = (await app.inject({ url: `/api/runs/${id}` })).json();
    expect(d).toMatchObject({
      status: 'finished',
      verdict: 'failed_closed',
      breaker: { tripped: true },
      counts: { total: 1088 },
    });
    const c = d.counts;
    // The counting rule (shared/requests/outcomes.ts): failed is everything not completed, split without overlap.
    expect(c.completed + c.failed).toBe(1088);
    expect(c.timedOut + c.cancelledAfterTimeout + c.cancelled + c.errored).toBe(c.failed);
    expect(d.stallReports.length).toBeGreaterThanOrEqual(1);
    expect(d.stallReports[0].report).toMatchObject({ phase: 'hift' });
    expect(d.stallReports[0].report.stack.length).toBeGreaterThan(0);
  }, 40_000);
});
