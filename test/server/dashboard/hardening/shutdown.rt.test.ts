/**
 * Shutdown is bounded whatever a run's size: an engine still winding down
 * past the manager's deadline (a million queued requests to cancel) gets its
 * run recorded as interrupted as it stands, the dashboard closes, and the
 * engine's later events are dropped without an error.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import type { runBenchmark } from '#server/engine/engine.ts';
import { SHUTDOWN_DEADLINE_MS } from '#server/dashboard/runs/manager.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';

describe('shutdown of a run that will not end in time', () => {
  it('records it as interrupted at the deadline and closes', async ({ newApp }) => {
    let emitted = 0;
    let afterClose = 0;
    let closed = false;
    const slowEngine = (async (_config, opts) => {
      opts!.onEvent!({
        type: 'run.started',
        t: 0,
        runId: 'x',
        startedAtMs: Date.now(),
        numRequests: 1_000_000,
        maxConcurrency: 10,
        requestRate: 'inf',
        failFast: false,
        model: 'm',
        baseUrl: 'http://127.0.0.1:1',
      });
      // Ignores the abort and keeps cancelling its queue, 200 requests per tick, for far longer than the deadline.
      for (let i = 0; i < 200_000; i += 200) {
        for (let k = i; k < i + 200; k++) {
          opts!.onEvent!({ type: 'request.queued', t: 1, index: k, requestId: `r-${k}` });
          emitted++;
          if (closed) afterClose++;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error('never gets here in this test');
    }) as typeof runBenchmark;
    const app = await newApp({ manager: { engine: slowEngine } });
    const spec = { ...CODE2WAV_HANG.spec, target: { kind: 'url', baseUrl: 'http://127.0.0.1:1' } };
    const r = await app.inject({ method: 'POST', url: '/api/runs', payload: spec });
    expect(r.statusCode, r.body).toBe(201);
    const { id } = r.json() as { id: string };
    // Wait for the engine to be under way (on a loaded machine a run takes more than a fixed 100 ms to start).
    await expect.poll(() => emitted, { timeout: 10_000 }).toBeGreaterThan(0);
    const t0 = performance.now();
    const status = () => sqliteOf(app.store).runs.get(id)?.status;
    let seenStatus: string | undefined;
    const closeStore = app.store.close.bind(app.store);
    app.store.close = async () => {
      seenStatus = status(); // what the store holds as it closes
      await closeStore();
    };
    await app.close();
    closed = true;
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(SHUTDOWN_DEADLINE_MS - 50);
    expect(took).toBeLessThan(SHUTDOWN_DEADLINE_MS + 3000); // generous for a busy machine; the bench has the tight figure
    expect(seenStatus).toBe('interrupted');
    await new Promise((res) => setTimeout(res, 50));
    expect(afterClose).toBeGreaterThan(0); // the engine went on, its events were dropped, nothing threw
  });
});
