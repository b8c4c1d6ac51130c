/**
 * No secret a reporter sent reaches a reader: a reported run whose
 * `run.started.baseUrl` carries `user:password@` and `?api_key=`, and whose
 * warning quotes a database URL with `?password=`, is read back with a view
 * token over every GET (the run, the list, the events, each export) and over
 * /ws, on a real dashboard on loopback: the secrets are nowhere, the masked
 * URLs are there. (Before: the events kept them, and `?api_key=` was kept in
 * the run's stored target and config too.)
 */
import { describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import { test as it } from '#test/helpers/fixtures.ts';
import { waitFor } from '#test/helpers/waitFor.ts';

const ADMIN = 'admin-token-for-secrets';
const PW = 'pw-d41d8cd9';
const KEY = 'key-8f00b204';
const DB_PW = 'db-e9800998';
const TARGET = `http://ci:${PW}@10.0.0.5:8000/v1?api_key=${KEY}`;
const MASKED = 'http://***@10.0.0.5:8000/v1?api_key=***';

const runStarted = (runId: string) => ({
  type: 'run.started',
  t: 0,
  runId,
  startedAtMs: Date.now(),
  numRequests: 2,
  maxConcurrency: 1,
  requestRate: 'inf',
  failFast: true,
  model: 'm',
  baseUrl: TARGET,
});

const secretsIn = (text: string) => [PW, KEY, DB_PW].filter((s) => text.includes(s));

describe('secrets in reported events', () => {
  it('are masked in every GET and on /ws, read with a view token', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, text: await res.text() };
    };
    const token = async (scope: string) =>
      (JSON.parse((await call('POST', '/api/tokens', ADMIN, { scope, name: `t-${scope}` })).text) as { token: string })
        .token;
    const report = await token('report');
    const view = await token('view');

    const created = await call('POST', '/api/runs/external', report, {
      runId: 'ci-sec',
      config: { model: 'm', baseUrl: TARGET, numPrompts: 2 },
    });
    expect(created.status).toBe(201);
    const warning = { type: 'run.warning', t: 1, message: `store at postgres://u@db:5432/x?password=${DB_PW} is slow` };
    const posted = await call('POST', '/api/runs/ci-sec/events', report, { events: [runStarted('ci-sec'), warning] });
    expect(posted.status).toBe(200);

    // /ws first, while the run is live: the replay a subscriber gets is what the hub holds.
    const frames: string[] = [];
    const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${view}` } });
    ws.on('message', (d) => frames.push(String(d)));
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    ws.send(JSON.stringify({ type: 'subscribe', runId: 'ci-sec', afterSeq: 0 }));
    await waitFor(() => frames.some((f) => f.includes('run.warning')));
    ws.terminate();
    const live = frames.join('\n');
    expect(secretsIn(live)).toEqual([]);
    expect(live).toContain(MASKED);
    expect(live).toContain('postgres://***@db:5432/x?password=*** is slow');

    const finished = await call('POST', '/api/runs/ci-sec/abandon', ADMIN);
    expect(finished.status).toBe(200);
    const events = await call('GET', '/api/runs/ci-sec/events', view);
    expect(events.status).toBe(200);
    expect(events.text).toContain(MASKED);
    const paths = [
      '/api/runs/ci-sec',
      '/api/runs',
      '/api/runs/ci-sec/events',
      '/api/runs/ci-sec/export?format=vllm',
      '/api/runs/ci-sec/export?format=trace',
      '/api/runs/ci-sec/export?format=csv',
      '/api/runs/ci-sec/export?format=evidence',
    ];
    for (const path of paths) {
      const r = await call('GET', path, view);
      expect(r.status, path).toBe(200);
      expect(secretsIn(r.text), path).toEqual([]);
    }
    const detail = JSON.parse((await call('GET', '/api/runs/ci-sec', view)).text) as {
      target: string;
      config: { baseUrl: string };
    };
    expect(detail.target).toBe(MASKED);
    expect(detail.config.baseUrl).toBe(MASKED);
  });
});
