/**
 * Liveness at the stall (docs/design.md#liveness-at-stall): at the first
 * stall evidence the probe asks the server `GET /health`, `GET /v1/models`
 * and one short text-only request, once, bounded, without delaying the stop.
 * Against the reproduction server with a Code2Wav hang, health and text
 * answer while the run's audio requests do not, and the result says so;
 * against a server hung entirely, every question is recorded as timed out
 * within its bound while the stop goes on undelayed.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '#server/engine/engine.ts';
import { startReproServer } from '#server/repro/server.ts';
import { LivenessProbe } from '#server/engine/probes/liveness/probe.ts';
import { livenessProbes } from '#server/engine/probes/liveness/index.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import { startSseServer } from '#test/helpers/sseServer.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { indexOfId } from '#test/helpers/failingServer.ts';
import { MODEL } from '#test/helpers/code2wav.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

function probeFor(config: RunConfig, boundMs: number, stallAfterS?: number): LivenessProbe {
  return new LivenessProbe({
    target: {
      baseUrl: config.target.baseUrl,
      endpoint: config.target.endpoint,
      model: config.target.model,
      headers: {},
      insecure: false,
    },
    runId: config.runId,
    boundMs,
    stallAfterS,
  });
}

async function run(config: RunConfig, probe: LivenessProbe | null) {
  const events: BenchEvent[] = [];
  const t0 = performance.now();
  const out = await runBenchmark(config, {
    warmClient: false,
    probes: probe ? [probe] : [],
    onEvent: (e) => events.push(e),
  });
  return {
    out,
    events,
    endedMs: performance.now() - t0,
    liveness: out.result.liveness_at_stall as Record<string, any>,
  };
}

/** A TCP server that accepts every connection and never answers anything: a process hung entirely. */
async function hungServer(): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stops.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const byName = (l: Record<string, any>) => Object.fromEntries(l.probes.map((p: any) => [p.name, p]));

describe('liveness at the stall', () => {
  it('the reproduction server with a Code2Wav hang: health, models and text answer, the audio requests do not, and the result says so', async () => {
    const target = await startReproServer({ tokenRate: 1000, faults: ['hift:block:after=1'], log: () => undefined });
    stops.push(() => target.close());
    const config = testBenchConfig(target.url, {
      model: MODEL,
      numPrompts: 8,
      maxConcurrency: 2,
      dataset: { name: 'random', inputLen: 8, outputLen: 8 },
      timeouts: {},
      extraBody: { modalities: ['text', 'audio'], ignore_eos: true },
      stopOn: ['no_progress>=1s'],
    });
    const { out, events, liveness } = await run(config, probeFor(config, 2000));
    const p = byName(liveness);
    expect(liveness.trigger).toMatchObject({ kind: 'no_progress', detail: 'the stop rule no_progress>=1s tripped' });
    expect(p.health).toMatchObject({ outcome: 'answered', status: 200, method: 'GET', path: '/health' });
    expect(p.models).toMatchObject({ outcome: 'answered', status: 200, detail: MODEL });
    expect(p.text).toMatchObject({ outcome: 'answered', status: 200, method: 'POST', path: '/v1/chat/completions' });
    expect(p.text.detail).toMatch(/\w/); // the thinker's words came back
    for (const q of Object.values(p) as { ms: number }[]) expect(q.ms).toBeLessThan(2000);
    // The run's own (audio) requests made no progress: that is what stopped it.
    expect(liveness.stalled.in_flight).toBe(2);
    expect(liveness.stalled.silent_s).toBeGreaterThanOrEqual(1);
    expect(out.result.stopped_by).toMatchObject({ kind: 'no_progress' });
    expect(liveness.summary).toMatch(
      /^The server answers health in \d+ ms, \/v1\/models in \d+ ms and a text-only request in \d+ ms, but none of the run's 2 requests in flight has received a byte for \d+\.\d s: the server and its text path are alive; the stall is on the audio path \(talker \/ Code2Wav\)\.$/,
    );
    // The live stream carries it, after the stop and before the end.
    const at = (t: string) => events.findIndex((e) => e.type === t);
    expect(at('server.liveness')).toBeGreaterThan(at('run.stopped'));
    expect(at('server.liveness')).toBeLessThan(at('run.finished'));
  }, 20_000);

  it('a server hung entirely: every question timed out within its bound, and the stop is not delayed', async () => {
    const url = await hungServer();
    const config = testBenchConfig(url, {
      numPrompts: 6,
      maxConcurrency: 3,
      timeouts: { totalS: 0.4 },
      failFast: true,
    });
    const { events, liveness } = await run(config, probeFor(config, 300));
    const p = byName(liveness);
    expect(liveness.trigger.kind).toBe('timeout');
    for (const name of ['health', 'models', 'text']) {
      expect(p[name]).toMatchObject({ outcome: 'timed_out', status: null, error: 'no reply within 300 ms' });
      expect(p[name].ms).toBeGreaterThanOrEqual(299);
      expect(p[name].ms).toBeLessThan(800);
    }
    expect(liveness.summary).toMatch(
      /^The server answers nothing \(health did not answer within \d+ ms, \/v1\/models did not answer within \d+ ms and a text-only request did not answer within \d+ ms\) and none of the run's 3 requests in flight has received a byte for \d+\.\d s: the whole process is stuck or gone\.$/,
    );
    // The stop went on while the questions waited: every request ended within the bounded stop of the
    // trip, before the liveness report; the run ended within the questions' bound of the trip.
    const trip = events.find((e) => e.type === 'breaker.tripped')!.t;
    // Requests ended: one per end event, and an unsent range's (one event for the tail) each.
    const ends = events.flatMap((e) => {
      if (e.type === 'requests.unsent') return Array<number>(e.to - e.from).fill(e.t);
      return e.type.startsWith('request.') && 'outcome' in e ? [e.t] : [];
    });
    expect(ends).toHaveLength(6);
    expect(Math.max(...ends)).toBeLessThan(trip + 600);
    const report = events.find((e) => e.type === 'server.liveness')!.t;
    expect(Math.max(...ends)).toBeLessThanOrEqual(report);
    expect(events.find((e) => e.type === 'run.finished')!.t).toBeLessThan(trip + 300 + 600);
  });

  it('without the probe the same run stops as fast: the probe adds nothing to the stop', async () => {
    const url = await hungServer();
    const config = testBenchConfig(url, {
      numPrompts: 6,
      maxConcurrency: 3,
      timeouts: { totalS: 0.4 },
      failFast: true,
    });
    const { events, out } = await run(config, null);
    expect(out.result.liveness_at_stall).toBeUndefined();
    const trip = events.find((e) => e.type === 'breaker.tripped')!.t;
    const ends = events.filter((e) => e.type.startsWith('request.') && 'outcome' in e).map((e) => e.t);
    expect(Math.max(...ends)).toBeLessThan(trip + 600);
  });

  it('--server-stall-after-s: a request silent that long starts the check before any timeout', async () => {
    const server = await startSseServer((a) =>
      indexOfId(a.requestId) === 1 ? { kind: 'hang-mid-stream', events: 2 } : { kind: 'ok', tokens: 4 },
    );
    stops.push(() => server.close());
    const config = testBenchConfig(server.url, { numPrompts: 3, maxConcurrency: 3, timeouts: { totalS: 1.5 } });
    const { liveness } = await run(config, probeFor(config, 500, 0.3));
    expect(liveness.trigger).toMatchObject({ kind: 'silence', detail: 'a request had no SSE event for 0.3 s' });
    expect(liveness.trigger.at_s).toBeLessThan(1.5);
    expect(liveness.stalled.in_flight).toBe(1);
    expect(byName(liveness).health.outcome).toBe('answered');
  });

  it('a run that never stalls records null, and asks nothing', async () => {
    const server = await startSseServer(() => ({ kind: 'ok', tokens: 4 }));
    stops.push(() => server.close());
    const config = testBenchConfig(server.url, { numPrompts: 3 });
    const { liveness } = await run(config, probeFor(config, 500, 5));
    expect(liveness).toBeNull();
    expect(server.arrivals.map((a) => a.requestId)).toEqual(['test-0', 'test-1', 'test-2']);
  });

  it("the probe built from a run's config asks with the run's credentials and headers, once", async () => {
    const server = await startSseServer((a) => (indexOfId(a.requestId) === 0 ? { kind: 'hang' } : { kind: 'ok' }));
    stops.push(() => server.close());
    const config = testBenchConfig(server.url, {
      numPrompts: 2,
      timeouts: { totalS: 0.3 },
      apiKey: 'sk-test',
      headers: { 'X-Team': 'audio' },
    });
    const out = await runBenchmark(config, {
      warmClient: false,
      probes: livenessProbes({ enabled: true }, config),
    });
    const asked = server.arrivals.filter((a) => a.requestId.includes('-liveness-'));
    expect(asked.map((a) => a.requestId).sort()).toEqual([
      'test-liveness-health',
      'test-liveness-models',
      'test-liveness-text',
    ]);
    for (const a of asked) expect(a.headers).toMatchObject({ authorization: 'Bearer sk-test', 'x-team': 'audio' });
    const text = asked.find((a) => a.requestId.endsWith('text'))!;
    expect(text.body).toMatchObject({ modalities: ['text'], max_tokens: 4, stream: false, model: 'm' });
    expect(out.result.liveness_at_stall).toMatchObject({ trigger: { kind: 'timeout' } });
    expect(livenessProbes({ enabled: false }, config)).toEqual([]);
  });
});
