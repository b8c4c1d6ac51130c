/**
 * Run probes are plug-ins: the engine runs the probes it is handed in
 * EngineOptions.probes and no other (it imports none). Each is started after
 * `run.started`, told of every event and every structural timeout, finished
 * after the dispatch, and its keys enter the result; one whose finish fails
 * is logged and adds nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import type { ProbeContext, RunProbe } from '#server/engine/run/probe.ts';
import type { TimeoutReport } from '#server/engine/stopRules/breaker.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

class RecordingProbe implements RunProbe {
  readonly seen: string[] = [];
  readonly timeouts: TimeoutReport[] = [];
  constructor(private readonly keys: Record<string, unknown> | Error) {}
  start(ctx: ProbeContext): void {
    this.seen.push('start');
    ctx.emit({ type: 'run.warning', message: 'probe started' });
  }
  onEvent(e: BenchEvent): void {
    this.seen.push(e.type);
  }
  onTimeout(r: TimeoutReport): void {
    this.timeouts.push(r);
  }
  finish(): Promise<Record<string, unknown>> {
    this.seen.push('finish');
    return this.keys instanceof Error ? Promise.reject(this.keys) : Promise.resolve(this.keys);
  }
}

describe('run probes handed to the engine', () => {
  it('are started after run.started, see every event and timeout, and add their keys to the result', async () => {
    // Request 0 never answers (its 0.3 s first-byte timeout fires); the others stream.
    server = await startSseServer((a) => (a.n === 0 ? { kind: 'hang' } : { kind: 'ok', tokens: 2 }));
    const probe = new RecordingProbe({ probe_key: 1 });
    const failing = new RecordingProbe(new Error('capture broke'));
    const lines: string[] = [];
    const out = await runBenchmark(
      testBenchConfig(server.url, { numPrompts: 3, maxConcurrency: 1, timeouts: { totalS: 5, firstByteS: 0.3 } }),
      { warmClient: false, probes: [probe, failing], log: (l) => lines.push(l) },
    );
    expect(probe.seen[0]).toBe('run.started');
    expect(probe.seen[1]).toBe('start');
    // Its own event went into the run like any other.
    expect(probe.seen[2]).toBe('run.warning');
    expect(probe.seen.filter((s) => s === 'request.sent')).toHaveLength(3);
    // Finished before the result is written, so before run.finished.
    expect(probe.seen.slice(-2)).toEqual(['finish', 'run.finished']);
    expect(probe.timeouts).toEqual([expect.objectContaining({ index: 0, kind: 'first_byte' })]);
    expect(out.result.probe_key).toBe(1);
    expect(lines).toContain('a run probe failed: capture broke');
  });

  it("none handed, none run: server-stacks settings beside the config are not the engine's to act on", async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    // A pid no process has: the probe's own check would refuse it before anything is sent.
    const serverStacks = { pid: 2 ** 22 - 7, captureOnTimeout: true, native: false };
    const out = await runBenchmark(Object.assign(testBenchConfig(server.url), { serverStacks }), { warmClient: false });
    expect(out.summary.counts.completed).toBe(3);
    expect(out.result).not.toHaveProperty('server_stacks');
  });
});
