/**
 * Scoped tokens on a real dashboard listening on loopback, reached over HTTP
 * and WebSocket: each scope's boundary, revocation, hostile input, and the
 * table holding hashes only. The dashboard's own token (`--token`) is the
 * admin token here, as it is for `stallscope serve`.
 */
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import { test as it } from '#test/helpers/fixtures.ts';
import { hangRunEvents, stallReport } from '#test/helpers/sampleEvents.ts';

const ADMIN = 'admin-secret-for-tests';

interface Reply {
  status: number;
  body: { code?: string; message?: string; [k: string]: unknown };
}

function client(base: string) {
  const send = async (method: string, path: string, token: string | null, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Reply['body']) : { text } };
  };
  const create = async (scope: string, name: string): Promise<string> => {
    const r = await send('POST', '/api/tokens', ADMIN, { scope, name });
    expect(r.status).toBe(201);
    return r.body.token as string;
  };
  return { send, create };
}

/** Opens /ws with a token; resolves with the upgrade's status (101 or the refusal's) and the socket if open. */
function openWs(base: string, token: string): Promise<{ status: number; ws: WebSocket | null }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${token}` } });
    ws.on('upgrade', (res) => resolve({ status: res.statusCode ?? 0, ws }));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, ws: null }));
    ws.on('error', reject);
  });
}

const events = (id: string) => hangRunEvents(id).filter((e) => e.type !== 'telemetry');

describe('scoped tokens (loopback, real HTTP)', () => {
  it('a report token creates runs and posts events, and can read nothing', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const { send, create } = client(url);
    const report = await create('report', 'nightly-amd');
    expect(report).toMatch(/^sst_report_[A-Za-z0-9_-]{43}$/);
    expect((await send('POST', '/api/runs/external', report, { runId: 'ci-1' })).status).toBe(201);
    expect((await send('POST', '/api/runs/ci-1/events', report, { events: events('ci-1') })).status).toBe(200);
    const ingest = await fetch(`${url}/api/ingest?runId=ci-1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${report}`, 'content-type': 'application/x-ndjson' },
      body: '',
    });
    expect(ingest.status).toBe(200);
    for (const path of ['/api/runs', '/api/runs/ci-1', '/api/runs/ci-1/events', '/api/stalls', '/metrics', '/']) {
      const r = await send('GET', path, report);
      expect(r.status, path).toBe(403);
      expect(r.body.code, path).toBe('API_FORBIDDEN_SCOPE');
    }
    expect((await send('GET', '/api/runs/ci-1/export?format=csv', report)).status).toBe(403);
    expect((await openWs(url, report)).status).toBe(403);
    // Nor manage anything: tokens, or the runs it reported.
    expect((await send('POST', '/api/tokens', report, { scope: 'admin', name: 'escalate' })).status).toBe(403);
    expect((await send('DELETE', '/api/runs/ci-1', report)).status).toBe(403);
    expect((await send('POST', '/api/runs/ci-1/pin', report)).status).toBe(403);
  });

  it("a report token feeds only the runs it created: another pipeline's token is refused", async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const { send, create } = client(url);
    const amd = await create('report', 'nightly-amd');
    const nv = await create('report', 'nightly-nv');
    expect((await send('POST', '/api/runs/external', amd, { runId: 'amd-1' })).status).toBe(201);
    expect((await send('POST', '/api/runs/external', ADMIN, { runId: 'admin-1' })).status).toBe(201);
    const intrude = await send('POST', '/api/runs/amd-1/events', nv, { events: events('amd-1') });
    expect(intrude.status).toBe(403);
    expect(intrude.body).toMatchObject({
      code: 'API_FORBIDDEN_SCOPE',
      message: expect.stringMatching(/not created with this report token/),
    });
    const telemetry = await fetch(`${url}/api/ingest?runId=amd-1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${nv}`, 'content-type': 'application/x-ndjson' },
      body: '',
    });
    expect(telemetry.status).toBe(403);
    // Nor a run the admin created; a run that does not exist is the route's 404.
    expect((await send('POST', '/api/runs/admin-1/events', amd, { events: [] })).status).toBe(403);
    expect((await send('POST', '/api/runs/none/events', nv, { events: [] })).status).toBe(404);
    // Its own token, and the admin, feed it.
    expect((await send('POST', '/api/runs/amd-1/events', amd, { events: events('amd-1').slice(0, 3) })).status).toBe(
      200,
    );
    // Telemetry joined by request id alone (no ?runId=) is held to the same rule: the line naming amd-1's request
    // is refused for the other pipeline's token, taken for its own.
    const stall = (opId: number) =>
      `${JSON.stringify({ v: 1, ts: Date.now(), type: 'watchdog.stall', report: stallReport('amd-1', opId) })}\n`;
    const ingest = async (token: string, body: string) => {
      const r = await fetch(`${url}/api/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body,
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    expect(await ingest(nv, stall(1))).toEqual({
      status: 200,
      body: {
        accepted: 0,
        rejected: 1,
        unjoined: 0,
        errors: [{ line: 1, message: expect.stringMatching(/run amd-1 was not created with this report token/) }],
      },
    });
    expect((await ingest(amd, stall(2))).body).toMatchObject({ accepted: 1, rejected: 0 });
    const opIds = async () =>
      ((await send('GET', '/api/runs/amd-1', ADMIN)).body.stallReports as { report: { opId: number } }[]).map(
        (s) => s.report.opId,
      );
    await expect.poll(opIds).toEqual([2]);
    expect((await send('POST', '/api/runs/amd-1/events', ADMIN, { events: events('amd-1').slice(3) })).status).toBe(
      200,
    );
    expect((await send('GET', '/api/runs/amd-1', ADMIN)).body.status).toBe('finished');
  });

  it('a view token reads REST, the live stream, /metrics and exports, and can post nothing', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const { send, create } = client(url);
    const view = await create('view', 'grafana');
    expect((await send('POST', '/api/runs/external', ADMIN, { runId: 'ci-2' })).status).toBe(201);
    expect((await send('POST', '/api/runs/ci-2/events', ADMIN, { events: events('ci-2') })).status).toBe(200);
    for (const path of ['/api/runs', '/api/runs/ci-2', '/api/runs/ci-2/requests', '/api/stalls', '/metrics'])
      expect((await send('GET', path, view)).status, path).toBe(200);
    expect((await send('GET', '/api/runs/ci-2/export?format=csv', view)).status).toBe(200);
    const ws = await openWs(url, view);
    expect(ws.status).toBe(101);
    ws.ws?.terminate();
    const posts: [string, string, unknown][] = [
      ['POST', '/api/runs/external', { runId: 'ci-3' }],
      ['POST', '/api/runs/ci-2/events', { events: [] }],
      ['POST', '/api/runs/ci-2/pin', undefined],
      ['DELETE', '/api/runs/ci-2', undefined],
      ['POST', '/api/tokens', { scope: 'view', name: 'x' }],
      ['GET', '/api/tokens', undefined],
    ];
    for (const [method, path, body] of posts) {
      const r = await send(method, path, view, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.code).toBe('API_FORBIDDEN_SCOPE');
      expect(r.body.message).toMatch(/a view token may not/);
    }
    const ingest = await fetch(`${url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${view}`, 'content-type': 'application/x-ndjson' },
      body: '',
    });
    expect(ingest.status).toBe(403);
    expect((await send('GET', '/api/runs/ci-3', ADMIN)).status).toBe(404); // nothing was created
  });

  it('a revoked token fails on its next request, and its open live stream is closed', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const { send, create } = client(url);
    const view = await create('view', 'wallboard');
    const report = await create('report', 'nightly-nv');
    const ws = await openWs(url, view);
    expect(ws.status).toBe(101);
    const closed = new Promise<number>((r) => ws.ws!.on('close', (code) => r(code)));
    const { tokens } = (await send('GET', '/api/tokens', ADMIN)).body as unknown as { tokens: { id: string }[] };
    for (const t of tokens) expect((await send('DELETE', `/api/tokens/${t.id}`, ADMIN)).status).toBe(200);
    expect(await closed).toBe(4401);
    for (const [token, path] of [
      [view, '/api/runs'],
      [report, '/api/runs/external'],
    ]) {
      const r = await send(path === '/api/runs' ? 'GET' : 'POST', path, token, path === '/api/runs' ? undefined : {});
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({
        code: 'API_UNAUTHORIZED',
        message: 'missing or wrong token: the token was revoked',
      });
    }
    expect((await openWs(url, view)).status).toBe(401);
    // Revoking again changes nothing; the name is free for a new token.
    const again = await send('DELETE', `/api/tokens/${tokens[0].id}`, ADMIN);
    expect(again.status).toBe(200);
    expect((await send('GET', '/api/runs', await create('view', 'wallboard'))).status).toBe(200);
  });

  it('stores only SHA-256 hashes, lists no token, and shows a token once', async ({ serveApp }) => {
    const { app, url } = await serveApp({ token: ADMIN });
    const { send, create } = client(url);
    const plain = [await create('report', 'a'), await create('view', 'b'), await create('admin', 'c')];
    const rows = await app.store.kysely
      .selectFrom('api_tokens')
      .selectAll()
      .orderBy('created_at_ms')
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(3);
    const everything = JSON.stringify(rows);
    for (const t of plain) {
      expect(everything).not.toContain(t);
      expect(everything).not.toContain(t.slice(-20));
      expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(t).digest('hex'));
    }
    const list = JSON.stringify((await send('GET', '/api/tokens', ADMIN)).body);
    for (const t of plain) expect(list).not.toContain(t);
    expect(list).toContain('"prefix":"sst_report_');
    // A created admin token manages tokens like the dashboard's own.
    expect((await send('POST', '/api/tokens', plain[2], { scope: 'view', name: 'd' })).status).toBe(201);
  });

  it('answers hostile requests with 4xx and a stable code, and keeps serving', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const { send, create } = client(url);
    await create('report', 'dup');
    const cases: [string, string, string | null, unknown, number, string][] = [
      ['POST', '/api/tokens', ADMIN, { scope: 'root', name: 'x' }, 400, 'API_BAD_REQUEST'],
      ['POST', '/api/tokens', ADMIN, { scope: 'view', name: 'has space' }, 400, 'API_BAD_REQUEST'],
      ['POST', '/api/tokens', ADMIN, { scope: 'view', name: 'x'.repeat(101) }, 400, 'API_BAD_REQUEST'],
      ['POST', '/api/tokens', ADMIN, { scope: 'view' }, 400, 'API_BAD_REQUEST'],
      ['POST', '/api/tokens', ADMIN, { scope: 'view', name: 'dup' }, 409, 'API_CONFLICT'],
      ['DELETE', '/api/tokens/tok_nope', ADMIN, undefined, 404, 'API_NOT_FOUND'],
      ['GET', '/api/runs', '', undefined, 401, 'API_UNAUTHORIZED'],
      ['GET', '/api/runs', 'sst_view_' + 'A'.repeat(43), undefined, 401, 'API_UNAUTHORIZED'],
      ['GET', '/api/runs', 'x'.repeat(8000), undefined, 401, 'API_UNAUTHORIZED'],
      ['GET', '/api/runs', "' OR 1=1 --", undefined, 401, 'API_UNAUTHORIZED'],
      ['GET', '/api/tokens', null, undefined, 401, 'API_UNAUTHORIZED'],
    ];
    for (const [method, path, token, body, status, code] of cases) {
      const r = await send(method, path, token, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      expect(r.body.code).toBe(code);
    }
    const garbage = await fetch(`${url}/api/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{"scope":',
    });
    expect(garbage.status).toBe(400);
    expect((await send('GET', '/api/health', null)).status).toBe(200);
  });
});
