import { describe, expect } from 'vitest';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import type { FastifyInstance } from 'fastify';
import { recordRun } from '#test/helpers/dashboardApp.ts';
import { csvCell } from '#server/dashboard/export/csv.ts';
import type { TraceEvent } from '#server/dashboard/export/chromeTrace.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { outcome } from '#test/helpers/sampleEvents.ts';

/**
 * Requests whose event times fall on sub-µs fractions that round in opposite
 * directions (x.0004 down, x.0006 up): rounding ts and dur separately would
 * push children past their parent or into their next sibling.
 */
function fractionalRun(runId: string, n: number): RunEvent[] {
  const events: RunEvent[] = [
    {
      type: 'run.started',
      t: 0,
      runId,
      startedAtMs: 1_000_000,
      numRequests: n,
      maxConcurrency: n,
      requestRate: 'inf',
      failFast: false,
      model: 'm',
      baseUrl: 'http://127.0.0.1:1',
    },
  ];
  for (let i = 0; i < n; i++) {
    const requestId = `${runId}-${i}`;
    const q = i * 1.7 + 0.0004 + (i % 3) * 0.0001;
    const s = q + 0.4997 + (i % 2) * 0.0002;
    const f = s + 1.0004 + (i % 4) * 0.0001;
    const e = f + 2.0005 + (i % 5) * 0.0001;
    events.push(
      { type: 'request.queued', t: q, index: i, requestId },
      { type: 'request.sent', t: s, index: i, requestId, attempt: 1 },
      { type: 'request.first_token', t: f, index: i, ttftS: (f - s) / 1000 },
      { type: 'request.completed', t: e, outcome: outcome(runId, i, 'completed', { sentT: s }) },
    );
  }
  return events;
}

const get = (app: FastifyInstance, id: string, format: string) =>
  app.inject({ url: `/api/runs/${id}/export?format=${format}` });

describe('GET /api/runs/:id/export', () => {
  it('trace: a Chrome Trace Event file with request tracks, Code2Wav ops and phases, stall/timeout/breaker instants, in-flight counter', async ({
    app,
  }) => {
    recordRun(app.hub, 'h1');
    const r = await get(app, 'h1', 'trace');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-disposition']).toMatch(/attachment; filename="stallscope-h1\.trace\.json"/);
    const { traceEvents } = r.json() as { traceEvents: TraceEvent[] };
    const on = (pid: number, tid: number) => traceEvents.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X');
    // Request 0: a span with nested queued / waiting / streaming, children inside the parent.
    const r0 = on(1, 1);
    const parent = r0.find((e) => e.name.startsWith('request 0'))!;
    expect(r0.map((e) => e.name).sort()).toEqual([
      'queued',
      'request 0: completed',
      'streaming',
      'waiting for first token',
    ]);
    for (const c of r0) {
      expect(c.ts).toBeGreaterThanOrEqual(parent.ts);
      expect(c.ts + c.dur!).toBeLessThanOrEqual(parent.ts + parent.dur!);
    }
    // The hung op on worker 0: a span that never ended, with setup then hift nested.
    const w0 = on(2, 1);
    expect(w0.map((e) => e.name)).toEqual(['op 5 (never ended)', 'setup', 'hift']);
    expect(w0[2].ts + w0[2].dur!).toBe(w0[0].ts + w0[0].dur!);
    const stall = traceEvents.find((e) => e.ph === 'i' && e.cat === 'watchdog')!;
    expect(stall).toMatchObject({ name: 'stall in hift', pid: 2, tid: 1, ts: 1100_000 });
    expect((stall.args!.stack as string[])[0]).toBe('blockForever (server/repro/faults.ts:10:3)');
    expect(traceEvents.find((e) => e.name === 'timeout (total)')).toMatchObject({ ph: 'i', tid: 3, ts: 4011_000 });
    expect(traceEvents.find((e) => e.name === 'breaker tripped')).toMatchObject({
      ph: 'i',
      s: 'g',
      args: { cause: { requestIndex: 2, lastPhase: 'hift' } },
    });
    expect(traceEvents.filter((e) => e.name === 'cancelled after timeout')).toHaveLength(1);
    const counter = traceEvents.filter((e) => e.ph === 'C').map((e) => e.args!.requests);
    expect(counter).toEqual([1, 0, 1, 0, 1, 2, 1, 0]);
    expect(traceEvents.some((e) => e.ph === 'M' && e.args!.name === 'req 5 (h1-5)')).toBe(true);
  });

  it('trace: on every request track, each child slice lies within its parent and siblings do not overlap (endpoints rounded once)', async ({
    app,
  }) => {
    const n = 24;
    recordRun(app.hub, 'h5', fractionalRun('h5', n));
    const { traceEvents } = (await get(app, 'h5', 'trace')).json() as { traceEvents: TraceEvent[] };
    let checked = 0;
    for (let tid = 1; tid <= n; tid++) {
      const track = traceEvents.filter((e) => e.pid === 1 && e.tid === tid && e.ph === 'X');
      const parent = track.find((e) => e.cat === 'request' && e.name.startsWith('request '))!;
      const children = track.filter((e) => e !== parent).sort((a, b) => a.ts - b.ts);
      expect(children.map((c) => c.name)).toEqual(['queued', 'waiting for first token', 'streaming']);
      for (const c of children) {
        expect(c.ts).toBeGreaterThanOrEqual(parent.ts);
        expect(c.ts + c.dur!).toBeLessThanOrEqual(parent.ts + parent.dur!);
      }
      for (let k = 1; k < children.length; k++)
        expect(children[k].ts).toBeGreaterThanOrEqual(children[k - 1].ts + children[k - 1].dur!);
      // The last child ends exactly with its parent, the first starts with it.
      expect(children[0].ts).toBe(parent.ts);
      expect(children[2].ts + children[2].dur!).toBe(parent.ts + parent.dur!);
      checked++;
    }
    expect(checked).toBe(n);
  });

  it('csv: one quoted row per request, placed in Code2Wav; blank, not 0, what a request that never completed lacks', async ({
    app,
  }) => {
    recordRun(app.hub, 'h2');
    const r = await get(app, 'h2', 'csv');
    expect(r.headers['content-type']).toMatch(/text\/csv/);
    const lines = r.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'index,request_id,status,worker,op,phase,in_stalled_op,waited_behind_op,queued_ms,sent_ms,first_token_ms,' +
        'first_audio_ms,end_ms,ttft_s,e2el_s,audio_ttfp_s,audio_duration_s,output_tokens,prompt_len,attempts,' +
        'timeout_kind,error',
    );
    expect(lines).toHaveLength(7);
    // Completed: its latencies; no Code2Wav op named it (blank, not 0 or false).
    expect(lines[1]).toBe('0,h2-0,completed,,,,,,0,1,2,,3,0.01,0.5,0.1,1,16,32,1,,');
    // Timed out in the op the watchdog reported stalled in hift: no first token, no E2E latency, no audio.
    expect(lines[3]).toBe('2,h2-2,timed_out,0,5,hift,true,,10,11,,,4011,,,,,16,32,1,total,total timeout after 4 s');
    expect(lines[4]).toMatch(/^3,h2-3,cancelled_after_timeout,0,5,hift,true,.*"cancelled, ""breaker"""$/);
    expect(lines[5]).toMatch(/^4,h2-4,not_dispatched,,,,,,,,,,4011,,,,,/);
    expect(csvCell('a\nb')).toBe('"a\nb"');
  });

  it('vllm: rebuilt with the engine builder when no result was stored, with the fail-fast keys', async ({ app }) => {
    recordRun(app.hub, 'h3');
    const r = await get(app, 'h3', 'vllm');
    const j = r.json();
    expect(j).toMatchObject({
      backend: 'openai-chat-omni',
      num_prompts: 10,
      completed: 2,
      timed_out_requests: 1,
      cancelled_after_timeout_requests: 3,
      not_dispatched_requests: 2,
      fail_fast_tripped: true,
      verdict: 'failed_closed',
    });
    expect(j.statuses).toEqual([
      'completed',
      'completed',
      'timed_out',
      'cancelled_after_timeout',
      'not_dispatched',
      'not_dispatched',
    ]);
    expect(r.body).not.toMatch(/NaN|Infinity/);
  });

  it('vllm: a dashboard run stored with a summary-only result gets the per-request arrays from its rows, in dataset order', async ({
    app,
  }) => {
    recordRun(app.hub, 'h6');
    const full = (await get(app, 'h6', 'vllm')).json() as Record<string, unknown>;
    const arrays = ['input_lens', 'start_times', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors'];
    const summaryOnly = Object.fromEntries(Object.entries(full).filter(([k]) => !arrays.includes(k)));
    sqliteOf(app.store).runs.update('h6', { result: summaryOnly });
    const j = (await get(app, 'h6', 'vllm')).json() as Record<string, unknown[]>;
    expect(Object.keys(j)).toEqual(Object.keys(full));
    expect(j.ttfts).toEqual([0.01, 0.01, 0.01, 0.01, 0.01, 0.01]);
    expect(j.errors).toEqual(['', '', 'total timeout after 4 s', 'cancelled, "breaker"', '', '']);
    expect(j.input_lens).toHaveLength(6);
    expect(j.output_lens).toEqual([16, 16, 0, 0, 0, 0]);
  });

  it('refuses unknown formats and runs', async ({ app }) => {
    recordRun(app.hub, 'h4');
    expect((await get(app, 'h4', 'xml')).statusCode).toBe(400);
    expect((await app.inject({ url: '/api/runs/h4/export' })).statusCode).toBe(400);
    expect((await get(app, 'nope', 'csv')).statusCode).toBe(404);
  });
});
