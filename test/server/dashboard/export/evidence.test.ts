/**
 * The evidence file (GET /api/runs/:id/export?format=evidence): one JSON with
 * the run (secrets masked), its verdict and the page's story sentence, every
 * stall report and capture with its fingerprint, age and requests, the
 * per-request table (the CSV's columns: who was in the stalled op, who waited
 * behind it), the vLLM result and the Perfetto trace.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { finalizeRun } from '#server/dashboard/runs/finalize.ts';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { newRun, outcome, stallReport } from '#test/helpers/sampleEvents.ts';

const S = 1_700_000_000_000;
const id = (i: number) => `ev-${i}`;

/** A py-spy capture that read the server (evidence), taken at the first timeout. */
const CAPTURE: ServerStacksReport = {
  source: 'py-spy',
  capture: 1,
  reason: { kind: 'first_timeout', requestIndex: 1, requestId: id(1), timeoutKind: 'total', elapsedS: 3 },
  rootPid: 77,
  native: false,
  capturedAtMs: S + 3002,
  durationMs: 40,
  phase: 'hift',
  inferred: null,
  requestIds: [id(0), id(1)],
  processes: [
    {
      pid: 77,
      ppid: null,
      cmdline: 'python -m vllm_omni',
      threads: [
        {
          name: 'MainThread',
          tid: 77,
          active: true,
          ownsGil: true,
          frames: [{ function: 'istft', file: '/srv/hift.py', line: 9, column: 0, language: 'python' }],
          phase: 'hift',
        },
      ],
    },
  ],
  stack: [{ function: 'istft', file: '/srv/hift.py', line: 9, column: 0, language: 'python' }],
  notes: [],
};

/**
 * Two requests on worker 0: #0's op 1 ends, then #1's op 2 stalls in hift (the watchdog reports it) while #0, still
 * streaming, waits behind it; both time out, py-spy captures the server at the first timeout.
 */
function events(): RunEvent[] {
  const tele = (t: number, event: Record<string, unknown>): RunEvent =>
    ({ type: 'telemetry', t, event: { v: 1, ts: S + t, workerId: 0, ...event } }) as RunEvent;
  const timedOut = (i: number, t: number): RunEvent => ({
    type: 'request.timed_out',
    t,
    kind: 'total',
    outcome: outcome('ev', i, 'timed_out', { error: 'total timeout after 3 s', sentT: i + 1 }),
  });
  return [
    {
      type: 'run.started',
      t: 0,
      runId: 'ev',
      startedAtMs: S,
      numRequests: 2,
      maxConcurrency: 2,
      requestRate: 'inf',
      failFast: false,
      model: 'm',
      baseUrl: 'http://127.0.0.1:1',
    },
    { type: 'request.queued', t: 0, index: 0, requestId: id(0) },
    { type: 'request.sent', t: 1, index: 0, requestId: id(0), attempt: 1 },
    { type: 'request.queued', t: 0, index: 1, requestId: id(1) },
    { type: 'request.sent', t: 2, index: 1, requestId: id(1), attempt: 1 },
    tele(10, { type: 'c2w.op.begin', opId: 1, requestIds: [id(0)], batchSize: 1 }),
    tele(11, { type: 'c2w.phase', opId: 1, requestIds: [id(0)], phase: 'hift', details: {} }),
    tele(20, { type: 'c2w.op.end', opId: 1, requestIds: [id(0)], durationMs: 10, ok: true }),
    tele(21, { type: 'c2w.op.begin', opId: 2, requestIds: [id(1)], batchSize: 1 }),
    tele(22, { type: 'c2w.phase', opId: 2, requestIds: [id(1)], phase: 'hift', details: {} }),
    tele(1100, {
      type: 'watchdog.stall',
      report: { ...stallReport('ev', 2), requestIds: [id(1)], capturedAtMs: S + 1100, inPhaseS: 1.078 },
    }),
    timedOut(1, 3001),
    timedOut(0, 3002),
    { type: 'server.stacks', t: 3002, report: CAPTURE },
    { type: 'run.warning', t: 3003, message: 'server stacks: a note' },
  ];
}

function record(app: FastifyInstance): void {
  const hub = app.hub;
  sqliteOf(hub.store).runs.insertRun(
    newRun('ev', {
      config: { baseUrl: 'http://user:hunter2@10.0.0.9:8000', apiKey: 'sk-secret', model: 'm' },
      metadata: { build: '1234' },
    }),
  );
  hub.open('ev', 'evidence');
  for (const e of events()) hub.append('ev', e);
  void finalizeRun(hub, 'ev', { status: 'finished', now: S + 3003 });
}

describe('the evidence file', () => {
  it('holds the run, its story, its stalls with fingerprints, the request table, the result and the trace', async ({
    app,
  }) => {
    record(app);
    const r = await app.inject({ url: '/api/runs/ev/export?format=evidence' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-disposition']).toBe('attachment; filename="stallscope-ev.evidence.json"');
    const ev = r.json();
    expect(ev).toMatchObject({ format: 'stallscope-evidence', version: 1 });
    expect(ev.run).toMatchObject({ id: 'ev', status: 'finished', metadata: { build: '1234' } });
    expect(ev.run.counts).toMatchObject({ total: 2, timedOut: 2 });
    // The page's sentence, from the same code.
    expect(ev.story).toBe(
      'Code2Wav op 2 stalled in hift at 0.02 s (worker 0); request #1 was in it; request #0 waited behind it; #0–#1 timed out.',
    );
    // Secrets never leave the server.
    expect(JSON.stringify(ev)).not.toMatch(/hunter2|sk-secret/);
    expect(ev.config).toMatchObject({ apiKey: '***' });

    const [watchdog, capture] = ev.stalls;
    expect(watchdog).toMatchObject({
      ref: 'w0-op2',
      source: 'watchdog',
      phase: 'hift',
      fingerprint: stallFingerprint('hift', stallReport('ev', 2).stack).fingerprint,
      fingerprintLabel: 'hift/blockForever',
      state: 'blocked when the run ended',
      requests: [{ index: 1, requestId: id(1) }],
    });
    // In hift 1.078 s at the report, then until the run's end (3.003 s) from the report (1.1 s).
    expect(watchdog.ageS).toBeCloseTo(1.078 + 1.903, 3);
    expect(capture).toMatchObject({
      ref: 'capture-1',
      source: 'py-spy',
      fingerprint: stallFingerprint('hift', CAPTURE.stack).fingerprint,
      fingerprintLabel: 'hift/istft',
      requests: [
        { index: 0, requestId: id(0) },
        { index: 1, requestId: id(1) },
      ],
      report: { processes: [{ pid: 77 }] },
    });
    expect(ev.warnings).toEqual([{ t: 3003, message: 'server stacks: a note' }]);

    const col = (name: string) => ev.requests.columns.indexOf(name) as number;
    const [r0, r1] = ev.requests.rows as unknown[][];
    expect([r0[col('worker')], r0[col('op')], r0[col('in_stalled_op')], r0[col('waited_behind_op')]]).toEqual([
      0,
      1,
      false,
      2,
    ]);
    expect([r1[col('op')], r1[col('phase')], r1[col('in_stalled_op')], r1[col('waited_behind_op')]]).toEqual([
      2,
      'hift',
      true,
      null,
    ]);
    expect([r1[col('e2el_s')], r1[col('audio_duration_s')], r1[col('ttft_s')]]).toEqual([null, null, null]);

    expect(ev.vllmResult).toMatchObject({ num_prompts: 10, failed: 2 });
    expect(ev.trace.traceEvents.some((e: { cat?: string }) => e.cat === 'py-spy')).toBe(true);
  });

  it('the CSV says the same about who was in the stalled op and who waited behind it', async ({ app }) => {
    record(app);
    const lines = (await app.inject({ url: '/api/runs/ev/export?format=csv' })).body.trim().split('\r\n');
    expect(lines[1]).toMatch(/^0,ev-0,timed_out,0,1,hift,false,2,0,1,/);
    expect(lines[2]).toMatch(/^1,ev-1,timed_out,0,2,hift,true,,0,2,/);
  });

  it('a run that does not exist is a 404', async ({ app }) => {
    expect((await app.inject({ url: '/api/runs/nope/export?format=evidence' })).statusCode).toBe(404);
  });
});
