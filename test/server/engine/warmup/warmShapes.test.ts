/**
 * Every warm-up stream learns its chunks' shapes (warmClient.ts): the run's
 * first stream learns the run's first shapes, and that path is warm for it.
 * Its own file: the warm-up runs once per process.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmClient } from '#server/engine/warmup/warmClient.ts';
import { ChunkShapes } from '#server/engine/transport/reading/chunkTemplate.ts';
import { RunConnections } from '#server/engine/transport/http/dispatcher.ts';
import { effectiveTimeouts } from '#shared/config/timeouts.ts';

afterEach(() => vi.restoreAllMocks());

describe('client warm-up and chunk shapes', () => {
  it("learns the role chunk's and the text chunk's shape in each of its streams, none shared", async () => {
    const added = vi.spyOn(ChunkShapes.prototype, 'add');
    // The target is never contacted by the warm-up: only its shape is used.
    const target = new RunConnections('http://127.0.0.1:9', { maxConcurrency: 4, mode: 'keep_alive' });
    const warmed = await warmClient({
      job: (i) => Promise.resolve({ index: 0, requestId: `w-${i}`, headers: {}, body: '{}', promptLen: 1 }),
      target: {
        dispatcher: target,
        origin: 'http://127.0.0.1:9',
        path: '/v1/chat/completions',
        limits: effectiveTimeouts({ totalS: 5 }),
        now: () => performance.now() / 1000,
        chunkShapes: new ChunkShapes(),
      },
      maxConcurrency: 4,
      requests: 6,
    });
    await target.sweep(null);
    expect(warmed).toBe(true);
    // Two a stream (the first pass's 6 and the second pass's); shared, a pass would learn two in all.
    expect(added.mock.calls.length).toBeGreaterThanOrEqual(2 * 6);
    expect(added.mock.calls.length % 2).toBe(0);
  });
});
