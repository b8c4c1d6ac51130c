/**
 * A signal during the client warm-up ends it at once (warmClient.ts): the
 * run's own stop then follows within its bound, instead of waiting for the
 * warm-up's requests or its 3 s deadline. Its own file: the warm-up runs once
 * per process.
 */
import { describe, expect, it } from 'vitest';
import { warmClient } from '#server/engine/warmup/warmClient.ts';
import { RunConnections } from '#server/engine/transport/http/dispatcher.ts';
import { effectiveTimeouts } from '#shared/config/timeouts.ts';

describe('client warm-up and the interrupt', () => {
  it('a signal 30 ms in ends a warm-up of 100,000 requests (deadline 10 s) within a few hundred ms', async () => {
    // The target is never contacted by the warm-up: only its shape is used.
    const target = new RunConnections('http://127.0.0.1:9', { maxConcurrency: 8, mode: 'per_request' });
    const stop = new AbortController();
    setTimeout(() => stop.abort('signal'), 30);
    const t0 = performance.now();
    const warmed = await warmClient({
      job: (i) =>
        Promise.resolve({
          index: 0,
          requestId: `w-${i}`,
          headers: { 'content-type': 'application/json' },
          body: '{}',
          promptLen: 1,
        }),
      target: {
        dispatcher: target,
        perRequest: true,
        origin: 'http://127.0.0.1:9',
        path: '/v1/chat/completions',
        limits: effectiveTimeouts({ totalS: 5 }),
        now: () => performance.now() / 1000,
      },
      maxConcurrency: 8,
      requests: 100_000,
      deadlineMs: 10_000,
      signal: stop.signal,
    });
    const elapsed = performance.now() - t0;
    await target.sweep(null);
    expect(warmed).toBe(true);
    expect(elapsed).toBeLessThan(1_000);
  });
});
