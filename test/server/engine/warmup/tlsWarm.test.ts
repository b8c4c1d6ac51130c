/**
 * An https target gets an https warm-up (warmClient.ts, loopbackTls.ts): the
 * TLS path is warm before the clock starts. Its own file: the warm-up runs
 * once per process (each test file has its own module registry).
 */
import dc from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { WARM_TLS } from '#server/engine/transport/loopback/loopbackTls.ts';
import { CONNECTED_CHANNEL, type ConnectedMessage } from '#server/engine/transport/h1/connection.ts';

let server: TestServer;
beforeAll(async () => {
  // The warm-up's own self-signed certificate serves the target here too (the run is --insecure).
  server = await startSseServer(() => ({ kind: 'ok', tokens: 4, audioChunks: 1 }), { tls: WARM_TLS });
});
afterAll(() => server?.close());

describe('client warm-up against an https target', () => {
  it('connects over TLS to its own loopback server before the clock starts; the run then completes', async () => {
    const seen: { protocol: string; toTarget: boolean; beforeClock: boolean }[] = [];
    let started = false;
    const onConnected = (m: unknown): void => {
      const { protocol, port } = m as ConnectedMessage;
      seen.push({ protocol, toTarget: port === server.port, beforeClock: !started });
    };
    dc.subscribe(CONNECTED_CHANNEL, onConnected);
    try {
      const out = await runBenchmark(testBenchConfig(server.url, { runId: 'tlswarm', insecure: true }), {
        onEvent: (e) => {
          if (e.type === 'run.started') started = true;
        },
      });
      expect(out.summary.counts.completed).toBe(3);
    } finally {
      dc.unsubscribe(CONNECTED_CHANNEL, onConnected);
    }
    const warmUp = seen.filter((c) => c.beforeClock && !c.toTarget);
    expect(warmUp.length).toBeGreaterThan(0);
    expect(warmUp.every((c) => c.protocol === 'https:')).toBe(true);
    // Nothing of the warm-up reaches the target; the run's own connections are all after the clock.
    expect(seen.filter((c) => c.toTarget).every((c) => !c.beforeClock && c.protocol === 'https:')).toBe(true);
    expect(server.arrivals.length).toBe(3);
  });
});
