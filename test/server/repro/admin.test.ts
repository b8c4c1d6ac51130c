import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildTargetApp, targetOf } from '#server/repro/server.ts';

let app: FastifyInstance;
beforeAll(async () => {
  app = buildTargetApp({ env: {} });
  await app.ready();
});
afterAll(async () => {
  await app.close();
});

describe('admin endpoints', () => {
  it.each(['/admin/workers/reset', '/admin/telemetry/flush'])('%s answers loopback callers only', async (url) => {
    const foreign = await app.inject({ method: 'POST', url, remoteAddress: '10.1.2.3' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.type).toBe('PermissionDeniedError');
    const local = await app.inject({ method: 'POST', url, remoteAddress: '127.0.0.1' });
    expect(local.statusCode).toBe(200);
  });

  it('validates the reset threshold and resets nothing while workers are idle', async () => {
    expect((await app.inject({ method: 'POST', url: '/admin/workers/reset?stalledForMs=-1' })).statusCode).toBe(400);
    expect((await app.inject({ method: 'POST', url: '/admin/workers/reset' })).json()).toEqual({ replaced: [] });
  });

  it('builds without listening, with the defaults of the brief', () => {
    expect(app.server.listening).toBe(false);
    expect(targetOf(app).options).toMatchObject({
      model: 'openbmb/MiniCPM-o-4_5',
      workers: 1,
      maxBatch: 4,
      tokenRate: 200,
      cfmSteps: 10,
      cfg: true,
      mode: 'eager',
      watchdogTimeoutS: 0,
    });
    expect(targetOf(app).monitor).toBeNull();
  });
});
