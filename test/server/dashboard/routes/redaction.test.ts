/**
 * Credentials never leave the dashboard: a reported run whose config carries
 * `user:pass@` in its target or recogniser URL and the recogniser's
 * Authorization header is stored and served masked, in the run's detail and
 * in the runs list; and the CLI's reporter does not send them at all.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testApp } from '#test/helpers/dashboardApp.ts';
import { redactConfig, redactSpec } from '#server/dashboard/runs/redact.ts';
import { createRemoteReporter } from '#server/engine/report/remote.ts';
import { redactUrl, redactSecretsDeep } from '#shared/redact.ts';

let app: FastifyInstance | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

const SECRET = 's3cr3t-pw';
const config = {
  model: 'm',
  baseUrl: `http://ci:${SECRET}@10.0.0.5:8000`,
  numPrompts: 2,
  apiKey: `key-${SECRET}`,
  headers: { Authorization: `Bearer ${SECRET}` },
  seedTtsEval: { asrUrl: `https://asr:${SECRET}@asr.example:8001`, asrHeaders: { Authorization: `Bearer ${SECRET}` } },
  // A request body's own credentials (`--extra-body '{"api_key": …}'`), nested ones too; other parameters kept.
  extraBody: { modalities: ['text', 'audio'], api_key: SECRET, auth: { client_secret: SECRET }, max_tokens: 64 },
};

describe('credentials in a run config', () => {
  it('GET /api/runs/:id and GET /api/runs show none of them', async () => {
    app = await testApp();
    const c = await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'cred-1', config } });
    expect(c.statusCode).toBe(201);
    const detail = await app.inject({ url: '/api/runs/cred-1' });
    const list = await app.inject({ url: '/api/runs' });
    expect(detail.statusCode).toBe(200);
    expect(detail.body).not.toContain(SECRET);
    expect(list.body).not.toContain(SECRET);
    const d = detail.json();
    expect(d.target).toBe('http://***@10.0.0.5:8000');
    expect(d.config.baseUrl).toBe('http://***@10.0.0.5:8000');
    expect(d.config.seedTtsEval.asrUrl).toBe('https://***@asr.example:8001');
    expect(d.config.seedTtsEval.asrHeaders).toEqual({ Authorization: '***' });
    expect(list.json().runs[0].target).toBe('http://***@10.0.0.5:8000');
    expect(d.config.extraBody).toEqual({
      modalities: ['text', 'audio'],
      api_key: '***',
      auth: { client_secret: '***' },
      max_tokens: 64,
    });
  });

  it('the reporter posts the config without the key, the headers or URL credentials', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        bodies.push(b);
        res.writeHead(req.url === '/api/runs/external' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(req.url === '/api/runs/external' ? '{"id":"r"}' : '{"lastSeq":1}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const reporter = createRemoteReporter({ url, runId: 'r', config, log: () => {} });
    await reporter.close();
    await new Promise<void>((r) => server.close(() => r()));
    expect(bodies.length).toBeGreaterThan(0);
    const created = JSON.parse(bodies[0]);
    expect(created.config.baseUrl).toBe('http://***@10.0.0.5:8000');
    expect(created.config.seedTtsEval).toEqual({ asrUrl: 'https://***@asr.example:8001' });
    expect(bodies.join('')).not.toContain(SECRET);
  });

  it('the rule: only the userinfo of a URL is masked', () => {
    expect(redactUrl('https://u:p@h:1/x?y=z')).toBe('https://***@h:1/x?y=z');
    expect(redactUrl('https://h:1/a@b')).toBe('https://h:1/a@b');
    expect(redactUrl('user@example.com')).toBe('user@example.com');
    const plain = { a: ['http://h/'], b: 1 };
    expect(redactSecretsDeep(plain)).toBe(plain);
    expect(redactSpec({ target: { kind: 'url', baseUrl: 'http://u:p@h' } })).toEqual({
      target: { kind: 'url', baseUrl: 'http://***@h' },
    });
    expect(redactConfig({ headers: { A: 'b' } })).toEqual({ headers: { A: '***' } });
  });
});
