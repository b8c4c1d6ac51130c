import { describe, expect } from 'vitest';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { MAX_LINE_CHARS } from '#server/dashboard/routes/ingest.ts';
import type { FastifyInstance } from 'fastify';
import { recordRun } from '#test/helpers/dashboardApp.ts';
import { newRun, stallReport } from '#test/helpers/sampleEvents.ts';

const ndjson = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
const post = (app: FastifyInstance, payload: string, query = '') =>
  app.inject({
    method: 'POST',
    url: `/api/ingest${query}`,
    headers: { 'content-type': 'application/x-ndjson' },
    payload,
  });

function live(app: FastifyInstance, id: string) {
  sqliteOf(app.store).runs.insertRun(newRun(id));
  app.hub.open(id, null);
}

describe('POST /api/ingest', () => {
  it('keeps good lines, counts and reports bad ones by line number, joins by request id', async ({ app }) => {
    live(app, 'run-1');
    live(app, 'run-1-x'); // a longer id sharing the prefix: ids join to the longest match
    const phase = {
      v: 1,
      ts: 1,
      type: 'c2w.phase',
      workerId: 0,
      opId: 1,
      requestIds: ['run-1-x-4'],
      phase: 'cfm',
      details: { step: 3 },
    };
    const stall = { v: 1, ts: 2, type: 'watchdog.stall', report: stallReport('run-1', 9) };
    const r = await post(
      app,
      ndjson(
        phase,
        '{not json',
        { v: 1, ts: 1, type: 'c2w.nope' },
        '',
        stall,
        { v: 1, ts: 'x', type: 'worker.idle', workerId: 0 },
        { v: 1, ts: 3, type: 'stage.progress', requestId: 'other-run-1', stage: 'talker', count: 3 },
      ),
    );
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ accepted: 2, rejected: 3, unjoined: 1 });
    expect(body.errors.map((e: { line: number }) => e.line)).toEqual([2, 3, 6]);
    expect(body.errors[1].message).toMatch(/unknown type/);
    expect(app.hub.tracker('run-1-x')!.phaseOf('run-1-x-4')).toBe('cfm');
    sqliteOf(app.store).writer.flush();
    expect(sqliteOf(app.store).runs.stallReports('run-1')).toHaveLength(1);
    expect(sqliteOf(app.store).runs.stallReports('run-1-x')).toHaveLength(0);
  });

  it('joins events to ?runId, events without request ids to the only live run, and refuses a finished run', async ({
    app,
  }) => {
    live(app, 'solo');
    const idle = { v: 1, ts: 1, type: 'worker.idle', workerId: 0 };
    expect((await post(app, ndjson(idle))).json()).toMatchObject({ accepted: 1 });
    expect((await post(app, ndjson(idle), '?runId=solo')).json()).toMatchObject({ accepted: 1 });
    expect((await post(app, ndjson(idle), '?runId=gone')).json()).toMatchObject({ accepted: 0, unjoined: 1 });
    live(app, 'second');
    expect((await post(app, ndjson(idle))).json()).toMatchObject({ accepted: 0, unjoined: 1 });
    expect(await app.hub.headSeq('solo')).toBe(2);
  });

  it('appends ?runId= events for a stored run that has ended to its stored events (next seqs) and stall reports', async ({
    app,
  }) => {
    recordRun(app.hub, 'done');
    expect(app.hub.isActive('done')).toBe(false);
    const head = (await app.hub.headSeq('done'))!;
    expect(sqliteOf(app.store).runs.stallReports('done')).toHaveLength(1);
    const stall = {
      v: 1,
      ts: 1_005_000,
      type: 'watchdog.stall',
      report: { ...stallReport('done', 11), capturedAtMs: 1_005_000 },
    };
    const idle = { v: 1, ts: 1_006_000, type: 'worker.idle', workerId: 0 };
    const r = (await post(app, ndjson(stall, idle), '?runId=done')).json();
    expect(r).toMatchObject({ accepted: 2, rejected: 0, unjoined: 0 });
    expect(await app.hub.headSeq('done')).toBe(head + 2);
    const late = sqliteOf(app.store).runs.eventsAfter('done', head, 10);
    expect(late.map((e) => e.seq)).toEqual([head + 1, head + 2]);
    expect(JSON.parse(late[0].json)).toMatchObject({
      type: 'telemetry',
      t: 5000,
      event: { type: 'watchdog.stall', report: { opId: 11 } },
    });
    expect(JSON.parse(late[1].json)).toMatchObject({ type: 'telemetry', event: { type: 'worker.idle' } });
    const stalls = sqliteOf(app.store).runs.stallReports('done');
    expect(stalls).toHaveLength(2);
    expect(JSON.stringify(stalls)).toContain('"opId":11');
    // Still no home for a run that does not exist.
    expect((await post(app, ndjson(idle), '?runId=nope')).json()).toMatchObject({ accepted: 0, unjoined: 1 });
  });

  it('joins by the exact x-request-id a live run sent, whatever its prefix', async ({ app }) => {
    live(app, 'ci-5');
    live(app, 'other');
    app.hub.append('ci-5', { type: 'request.sent', t: 0, index: 0, requestId: 'custom-prefix-0', attempt: 1 });
    const ev = {
      v: 1,
      ts: 1,
      type: 'c2w.op.begin',
      workerId: 0,
      opId: 1,
      requestIds: ['custom-prefix-0'],
      batchSize: 1,
    };
    expect((await post(app, ndjson(ev))).json()).toMatchObject({ accepted: 1 });
    expect(await app.hub.headSeq('ci-5')).toBe(2);
    app.hub.close('ci-5');
    expect(app.hub.runOfRequest('custom-prefix-0')).toBeUndefined();
  });

  it('limits the body size', async ({ app }) => {
    const big = 'x'.repeat(17 * 1024 * 1024);
    const r = await post(app, big);
    expect(r.statusCode).toBe(413);
    expect(r.json().code).toBe('API_PAYLOAD_TOO_LARGE');
  });

  it('counts telemetry that joined no run in /api/health and /metrics (it is never dropped silently)', async ({
    app,
  }) => {
    live(app, 'ci-7');
    const health = async () => (await app.inject({ url: '/api/health' })).json<{ telemetry: { unjoined: number } }>();
    expect((await health()).telemetry.unjoined).toBe(0);
    const stray = (opId: number) => ({ v: 1, ts: 1, type: 'watchdog.stall', report: stallReport('elsewhere', opId) });
    const r = await post(app, ndjson(stray(1), stray(2), { ...stray(3), report: stallReport('ci-7', 3) }));
    expect(r.json()).toMatchObject({ accepted: 1, unjoined: 2 });
    expect((await health()).telemetry.unjoined).toBe(2);
    expect((await post(app, ndjson(stray(4)), '?runId=nope')).json()).toMatchObject({ unjoined: 1 });
    expect((await health()).telemetry.unjoined).toBe(3);
    expect((await app.inject({ url: '/metrics' })).body).toMatch(/^stallscope_telemetry_unjoined_total 3$/m);
  });

  it("masks a server's secrets in telemetry before it is stored", async ({ app }) => {
    live(app, 'ci-8');
    const report = stallReport('ci-8', 4);
    report.stack[0].file = 'http://svc:hunter2@host/model?token=abc123&step=3';
    const r = await post(app, ndjson({ v: 1, ts: 1, type: 'watchdog.stall', report }));
    expect(r.json()).toMatchObject({ accepted: 1 });
    await app.store.ingest.flush();
    const events = await app.store.runReads.eventsAfter('ci-8', 0, 100);
    const text = events.map((e) => e.json).join('\n');
    expect(text).toContain('step=3');
    expect(text).not.toMatch(/hunter2|abc123/);
  });

  it('refuses a line longer than 2 MiB without parsing it; the lines around it are taken', async ({ app }) => {
    live(app, 'ci-9');
    const stall = (opId: number) => ({ v: 1, ts: 1, type: 'watchdog.stall', report: stallReport('ci-9', opId) });
    const huge = { ...stall(2), report: { ...stallReport('ci-9', 2), details: { pad: 'x'.repeat(MAX_LINE_CHARS) } } };
    const r = await post(app, ndjson(stall(1), huge, stall(3)));
    expect(r.json()).toMatchObject({
      accepted: 2,
      rejected: 1,
      errors: [{ line: 2, message: expect.stringMatching(/longer than 2097152: not parsed$/) }],
    });
  });
});
