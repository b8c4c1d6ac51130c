import { describe, expect } from 'vitest';
import { WebSocket } from 'ws';
import { hostOf, isLoopback, portOf } from '#server/dashboard/plugins/security.ts';
import { tokenMatches } from '#server/dashboard/auth/compare.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { selfHost } from '#server/dashboard/app.ts';

describe('Host and Origin checks', () => {
  it('refuses a Host that is not loopback or configured (DNS rebinding)', async ({ newApp }) => {
    const app = await newApp({ allowedHosts: ['dash.lab'] });
    for (const host of ['localhost:7077', '127.0.0.1:7077', '[::1]:7077', 'dash.lab', 'DASH.LAB:80']) {
      expect((await app.inject({ url: '/api/health', headers: { host } })).statusCode, host).toBe(200);
    }
    for (const host of ['evil.example:7077', 'attacker.com', '127.0.0.1.evil.com']) {
      const r = await app.inject({ url: '/api/health', headers: { host } });
      expect(r.statusCode, host).toBe(403);
      expect(r.json().code).toBe('API_FORBIDDEN_ORIGIN');
    }
  });

  it('refuses state-changing requests from a foreign Origin, allows same-host pages and reads', async ({ app }) => {
    const del = (origin?: string, host = 'localhost:7077') =>
      app.inject({ method: 'DELETE', url: '/api/runs/none', headers: origin ? { origin, host } : { host } });
    expect((await del('http://evil.example')).statusCode).toBe(403);
    expect((await del('null')).statusCode).toBe(403);
    expect((await del('http://localhost:7077')).statusCode).toBe(404); // allowed through; the run just does not exist
    // The Vite dev server proxies with the page's Host: same host and port as the Origin.
    expect((await del('http://localhost:5173', 'localhost:5173')).statusCode).toBe(404);
    expect((await del()).statusCode).toBe(404); // no Origin: CLI, curl
    const post = await app.inject({
      method: 'POST',
      url: '/api/import',
      headers: { origin: 'https://evil.example', 'content-type': 'text/plain' },
      payload: '{}',
    });
    expect(post.statusCode).toBe(403);
    expect((await app.inject({ url: '/api/runs', headers: { origin: 'http://evil.example' } })).statusCode).toBe(200);
  });

  it('refuses an Origin on the right host but another port (another local page), for a POST and the WebSocket upgrade', async ({
    serveApp,
  }) => {
    const { app, url: base } = await serveApp();
    const port = new URL(base).port;
    const post = async (origin: string) => {
      const r = await fetch(`${base}/api/runs/none/cancel`, { method: 'POST', headers: { origin } });
      return { status: r.status, body: (await r.json()) as { code: string } };
    };
    expect(await post('http://localhost:9999')).toMatchObject({ status: 403, body: { code: 'API_FORBIDDEN_ORIGIN' } });
    expect((await post('http://127.0.0.1:9999')).status).toBe(403);
    // Same origin (or another loopback name on the same port): reaches the route, which knows no such run.
    expect((await post(`http://127.0.0.1:${port}`)).body.code).not.toBe('API_FORBIDDEN_ORIGIN');
    expect((await post(`http://localhost:${port}`)).body.code).not.toBe('API_FORBIDDEN_ORIGIN');
    // A real upgrade on the socket; a refused one is closed by the server (else app.close() would wait on it).
    const upgrade = (origin: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { origin } });
        ws.on('upgrade', (res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', (e) => reject(e));
      });
    expect(await upgrade('http://localhost:9999')).toBe(403);
    expect(await upgrade(`http://127.0.0.1:${port}`)).toBe(101);
    const closing = Date.now();
    await app.close();
    expect(Date.now() - closing).toBeLessThan(2000);
  });

  it('accepts an Origin spelled out as an allowed host:port', async ({ newApp }) => {
    const app = await newApp({ allowedHosts: ['dash.lab:8443'] });
    const del = (origin: string) =>
      app.inject({ method: 'DELETE', url: '/api/runs/none', headers: { origin, host: 'localhost:7077' } });
    expect((await del('https://dash.lab:8443')).statusCode).toBe(404);
    expect((await del('https://dash.lab:8444')).statusCode).toBe(403);
    expect(portOf('[::1]:80', 'http')).toBe('80');
    expect(portOf('localhost', 'https')).toBe('443');
  });

  it('limits body size on ordinary routes', async ({ app }) => {
    const r = await app.inject({ method: 'POST', url: '/api/runs', payload: { label: 'x'.repeat(2 * 1024 * 1024) } });
    expect(r.statusCode).toBe(413);
  });
});

describe('token when bound to a non-loopback address', () => {
  it('requires the token on every route but /api/health: bearer, header, query (sets a cookie) or cookie', async ({
    newApp,
  }) => {
    const app = await newApp({ host: '0.0.0.0', token: 's3cret' });
    // Health answers anyone (a load balancer's probe carries no token); nothing else does.
    expect((await app.inject({ url: '/api/health' })).statusCode).toBe(200);
    const refused = await app.inject({ url: '/api/runs' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('API_UNAUTHORIZED');
    expect((await app.inject({ url: '/api/runs', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/runs', headers: { authorization: 'Bearer s3cret' } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/runs', headers: { 'x-stallscope-token': 's3cret' } })).statusCode).toBe(200);
    const q = await app.inject({ url: '/api/runs?token=s3cret' });
    expect(q.statusCode).toBe(200);
    expect(String(q.headers['set-cookie'])).toMatch(/stallscope_token=s3cret; Path=\/; HttpOnly; SameSite=Strict/);
    expect(
      (await app.inject({ url: '/api/runs', headers: { cookie: 'a=1; stallscope_token=s3cret' } })).statusCode,
    ).toBe(200);
    expect((await app.inject({ url: '/api/runs', headers: { cookie: 'stallscope_token=nope' } })).statusCode).toBe(401);
    // A malformed escape in the cookie is no token (401), not a crash.
    expect((await app.inject({ url: '/api/runs', headers: { cookie: 'stallscope_token=%E0%A4%A' } })).statusCode).toBe(
      401,
    );
    expect((await app.inject({ url: '/nothing-here' })).statusCode).toBe(401);
  });

  it('the embedded repro server reaches the dashboard at the bound address, or loopback when bound everywhere', () => {
    expect(selfHost('0.0.0.0')).toBe('127.0.0.1');
    expect(selfHost('::')).toBe('127.0.0.1');
    expect(selfHost('127.0.0.1')).toBe('127.0.0.1');
    expect(selfHost('::1')).toBe('[::1]');
    expect(selfHost('10.1.2.3')).toBe('10.1.2.3');
  });

  it('compares tokens in constant time and parses hosts', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abcd', 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
    expect(hostOf('[::1]:80')).toBe('::1');
    expect(hostOf('Example.COM:7077')).toBe('example.com');
    expect(isLoopback('127.0.0.2')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
  });
});
