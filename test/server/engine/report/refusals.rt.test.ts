/**
 * `bench --report-to` says why the dashboard did not take its run and what it
 * cost: the cause once, when refused (a real dashboard's 401 without a token
 * and 403 for a view token; a plain server's 409, 413, and a 503 still
 * answered when the run ends), and the events lost in all at close. Its events
 * leave the process with their secrets masked. Before: one line with the raw
 * reply, no count; the events went out with `user:password@` in them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { createRemoteReporter } from '#server/engine/report/remote.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';

const ADMIN = 'admin-token-reporter';
const warning = (i: number) => ({ type: 'run.warning', t: i, message: `w${i}` }) as BenchEvent;

/** Reports `n` events, waits for the first flush to be answered, reports `after` more, closes; the lines printed. */
async function report(url: string, n: number, after = 0, closeTimeoutMs = 2000): Promise<string[]> {
  const lines: string[] = [];
  const r = createRemoteReporter({
    url,
    runId: 'rr',
    config: {},
    log: (l) => lines.push(l),
    flushMs: 5,
    closeTimeoutMs,
  });
  for (let i = 0; i < n; i++) r.onEvent(warning(i));
  const until = Date.now() + 2000;
  while (!lines.length && Date.now() < until && closeTimeoutMs > 1000) await new Promise((s) => setTimeout(s, 5));
  for (let i = 0; i < after; i++) r.onEvent(warning(n + i));
  await r.close();
  return lines.map((l) => l.replace(url, 'URL'));
}

/** A server answering every post with the run's creation accepted, then `status` and `body` for every batch. */
async function answering(status: number, body: string) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/api/runs/external') return void res.writeHead(201).end('{"id":"rr"}');
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('bench --report-to refused', () => {
  it('by a real dashboard: no token (401), a view token (403)', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const hint =
      "put ?token= on the --report-to URL or set $STALLSCOPE_TOKEN ('stallscope token create --scope report')";
    const cause401 = `401 API_UNAUTHORIZED (no token was sent: ${hint})`;
    expect(await report(url, 4, 3)).toEqual([
      `stallscope: --report-to URL: the dashboard refused the run: ${cause401}; the benchmark goes on without the dashboard`,
      `stallscope: --report-to URL: 7 events refused by the dashboard: ${cause401} ×1 post`,
    ]);
    const created = await fetch(`${url}/api/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'view', name: 'viewer' }),
    });
    const view = ((await created.json()) as { token: string }).token;
    const cause403 =
      "403 API_FORBIDDEN_SCOPE (the token's scope does not allow this: a view token may not POST /api/runs/external (it needs report))";
    const lines = await report(`${url}/?token=${view}`, 2);
    expect(lines.map((l) => l.replace(/--report-to \S+:/, '--report-to URL:'))).toEqual([
      `stallscope: --report-to URL: the dashboard refused the run: ${cause403}; the benchmark goes on without the dashboard`,
      `stallscope: --report-to URL: 2 events refused by the dashboard: ${cause403} ×1 post`,
    ]);
    expect(lines.join('\n')).not.toContain(view);
  });

  it.each([
    [
      409,
      '{"code":"API_CONFLICT","message":"run rr ended (abandoned)"}',
      '409 API_CONFLICT (run rr ended (abandoned))',
    ],
    [
      413,
      '{"code":"API_PAYLOAD_TOO_LARGE","message":"request body too large"}',
      '413 API_PAYLOAD_TOO_LARGE (request body too large)',
    ],
  ])('by any server: %i, with the batch and everything after counted', async (status, body, cause) => {
    const s = await answering(status, body);
    const lines = await report(s.url, 5, 2);
    s.close();
    expect(lines).toEqual([
      `stallscope: --report-to URL: the dashboard refused 5 events: ${cause}; the benchmark goes on without the dashboard`,
      `stallscope: --report-to URL: 7 events refused by the dashboard: ${cause} ×1 post`,
    ]);
  });

  it('a 503 still answered when the run ends is the cause it gives up on', async () => {
    const s = await answering(
      503,
      '{"code":"STORE_UNAVAILABLE","message":"the database is unreachable and the outage buffer is full"}',
    );
    const lines = await report(s.url, 6, 0, 300);
    s.close();
    const cause = '503 STORE_UNAVAILABLE (the database is unreachable and the outage buffer is full)';
    expect(lines).toEqual([
      `stallscope: --report-to URL: the dashboard refused 6 events: ${cause}; the benchmark goes on without the dashboard`,
      `stallscope: --report-to URL: 6 events refused by the dashboard: ${cause} ×1 post`,
    ]);
  });

  it('sends its events with their secrets masked', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        bodies.push(b);
        res.writeHead(req.url === '/api/runs/external' ? 201 : 200).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = createRemoteReporter({ url, runId: 'rr', config: {}, log: () => {} });
    r.onEvent({ type: 'run.warning', t: 0, message: 'retrying http://u:hunter2@h:1/v1?api_key=k3y' } as BenchEvent);
    await r.close();
    server.close();
    const sent = bodies.join('\n');
    expect(sent).toContain('retrying http://***@h:1/v1?api_key=***');
    expect(sent).not.toMatch(/hunter2|k3y/);
  });
});
