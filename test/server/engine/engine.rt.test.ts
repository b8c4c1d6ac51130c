import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { groupedConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refusedPort, startSseServer, type Behaviour, type TestServer } from '#test/helpers/sseServer.ts';
import { DONE, roleEvent, sse, textEvent, usageEvent } from '#test/helpers/sse.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import { arrivalOffsets } from '#server/engine/schedule/arrivals.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import { StallscopeError } from '#shared/errors.ts';
import { readJson } from '#test/fixtures/golden-helpers/golden.ts';

const seedRoot = fileURLToPath(new URL('../../fixtures/datasets/seed-tts', import.meta.url));
let server: TestServer | null = null;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-engine-'));
});
afterEach(async () => {
  await server?.close();
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

const idx = (id: string): number => Number(id.split('-').pop());

function config(url: string, over: Partial<FlatBenchConfig> = {}): RunConfig {
  return groupedConfig({
    runId: 'run7',
    baseUrl: url,
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'openbmb/MiniCPM-o-4_5',
    dataset: { name: 'random', inputLen: 8, outputLen: 8 },
    numPrompts: 6,
    maxConcurrency: 2,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf'],
    metricPercentiles: [99],
    timeouts: { totalS: 5 },
    failFast: false,
    thresholds: [],
    save: { dir, detailed: true },
    ...over,
  });
}

describe('runBenchmark', () => {
  it('a seed-tts run that passes: ids, bodies, result file with vLLM keys and ours, events', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 4, audioChunks: 2 }));
    const events: BenchEvent[] = [];
    const out = await runBenchmark(
      config(server.url, {
        dataset: { name: 'seed-tts', path: seedRoot, locale: 'en', noOversample: true },
        numPrompts: 2000,
        thresholds: ['failed==0', 'mean_e2el_ms<=60000'],
        metadata: { build: '42' },
      }),
      { onEvent: (e) => events.push(e) },
    );
    expect(out.summary.verdict).toBe('passed');
    expect([...out.statuses]).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(server.arrivals.map((a) => a.requestId).sort()).toEqual(['run7-0', 'run7-1', 'run7-2', 'run7-3']);
    const body = server.arrivals[0].body;
    expect(body.task_type).toBe('Base');
    expect(String(body.ref_audio)).toMatch(/^data:audio\/wav;base64,/);
    expect(out.resultFile).toMatch(/openai-chat-omni-infqps-concurrency2-MiniCPM-o-4_5-\d{8}-\d{6}\.json$/);
    const saved = JSON.parse(readFileSync(out.resultFile!, 'utf8'));
    expect(saved).toMatchObject({
      backend: 'openai-chat-omni',
      num_prompts: 2000,
      build: '42',
      request_rate: 'inf',
      completed: 4,
      failed: 0,
      verdict: 'passed',
      fail_fast_enabled: false,
      fail_fast_tripped: false,
      timed_out_requests: 0,
    });
    expect(saved.ttfts).toHaveLength(4);
    expect(saved.mean_audio_ttfp_ms).toBeGreaterThan(0);
    expect(events[0].type).toBe('run.started');
    expect(
      events
        .filter((e) => e.type === 'run.warning')
        .map((e) => (e as { message: string }).message)
        .join(),
    ).toMatch(/missing/);
    expect(events.at(-1)!.type).toBe('run.finished');
    expect(events.filter((e) => e.type === 'request.completed')).toHaveLength(4);
  });

  it('fail-fast: failed_closed, counts and cause in the file, every aborted socket closed before the file exists', async () => {
    server = await startSseServer((a) => (idx(a.requestId) < 2 ? { kind: 'ok' } : { kind: 'hang-after-headers' }));
    let checkedAtFinish: { open: number; fileExists: boolean } | null = null;
    const out = await runBenchmark(
      config(server.url, {
        numPrompts: 10,
        maxConcurrency: 3,
        timeouts: { totalS: 0.6 },
        failFast: true,
        thresholds: ['mean_e2el_ms<=100000'],
      }),
      {
        onEvent: (e) => {
          if (e.type === 'run.finished')
            checkedAtFinish = { open: server!.openSockets, fileExists: existsSync(e.summary.resultFile!) };
        },
      },
    );
    expect(out.summary.verdict).toBe('failed_closed'); // a high-scoring partial run cannot pass
    expect(out.summary.cause).toMatchObject({ requestIndex: 2, kind: 'total', requestId: 'run7-2' });
    const saved = JSON.parse(readFileSync(out.resultFile!, 'utf8'));
    expect(saved.fail_fast_tripped).toBe(true);
    expect(saved.fail_fast_cause).toMatchObject({ request_index: 2, kind: 'total' });
    expect(saved.completed).toBe(2);
    expect(saved.failed).toBe(8);
    expect(saved.timed_out_requests + saved.cancelled_after_timeout_requests).toBe(8);
    expect(saved.not_dispatched_requests).toBe(10 - server.arrivals.length);
    expect(saved.statuses.slice(0, 2)).toEqual(['completed', 'completed']);
    expect(saved.generated_texts[0]).not.toBe('');
    // The server saw every socket of the aborted requests closed before the result file was written.
    expect(checkedAtFinish).toEqual({ open: 0, fileExists: true });
  });

  it('a run whose every request completes but one timed out (breaker off) still fails closed', async () => {
    server = await startSseServer((a) => (idx(a.requestId) === 3 ? { kind: 'hang' } : { kind: 'ok' }));
    const out = await runBenchmark(config(server.url, { timeouts: { totalS: 0.6 }, thresholds: ['failed<=1'] }));
    expect(server.arrivals).toHaveLength(6);
    expect([...out.statuses].filter((s) => s === 'timed_out')).toHaveLength(1);
    expect(out.summary.verdict).toBe('failed_closed');
    expect(out.summary.breakerTripped).toBe(false);
  });

  it('a misbehaving target fails one request each, never the run', async () => {
    const raw = (chunks: string[]): Behaviour => ({ kind: 'raw', chunks });
    const behaviours: Behaviour[] = [
      { kind: 'ok' },
      { kind: 'status', status: 503 },
      raw([roleEvent(), 'this is not SSE\n\n', DONE]),
      raw([roleEvent(), 'data: {not json\n\n', DONE]),
      raw([roleEvent(), sse({ error: { message: 'EngineDeadError: boom' } }), DONE]),
      raw([roleEvent(), sse({ choices: [{ index: 0, delta: { content: '!!!notbase64' } }], modality: 'audio' }), DONE]),
      raw([roleEvent(), textEvent('a', 1), usageEvent(1), DONE]),
      { kind: 'reset-mid-stream', events: 2 },
      { kind: 'status', status: 404 },
      raw([
        roleEvent(),
        sse({
          choices: [{ index: 0, delta: { content: Buffer.from('RIFF not a wav at all').toString('base64') } }],
          modality: 'audio',
        }),
        DONE,
      ]),
      raw([roleEvent(), textEvent('x'.repeat(5000), 1), DONE]),
    ];
    server = await startSseServer((a) => behaviours[idx(a.requestId)]);
    const out = await runBenchmark(
      config(server.url, { numPrompts: behaviours.length, maxConcurrency: 4, maxEventBytes: 4096 }),
    );
    expect([...out.statuses]).toEqual([
      'completed',
      'failed',
      'failed',
      'failed',
      'failed',
      'failed',
      'completed',
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
    expect(out.records.at(1)!.error).toBe('Service Unavailable');
    expect(out.records.at(4)!.error).toContain('EngineDeadError: boom');
    expect(out.records.at(8)!.error).toBe('Not Found');
    expect([...out.records].map((r) => r.errorCode)).toEqual([
      null,
      'REQ_HTTP_STATUS',
      'REQ_BAD_SSE',
      'REQ_BAD_JSON',
      'REQ_STREAM_ERROR',
      'REQ_BAD_AUDIO',
      null,
      'REQ_TRANSPORT',
      'REQ_HTTP_STATUS',
      'REQ_BAD_AUDIO',
      'REQ_EVENT_TOO_LARGE',
    ]);
    for (const r of [...out.records].filter((x) => !x.success)) expect(r.error).not.toBe('');
    expect(out.summary.verdict).toBe('failed');
  });

  it('warmups send the first request N times with their own ids, uncounted', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    const out = await runBenchmark(config(server.url, { numPrompts: 3, numWarmups: 2, readyCheckTimeoutS: 2 }));
    const ids = server.arrivals.map((a) => a.requestId);
    expect(ids.slice(0, 3)).toEqual([
      'run7-ready-1',
      expect.stringMatching(/^run7-warmup-/),
      expect.stringMatching(/^run7-warmup-/),
    ]);
    expect(ids.filter((i) => /^run7-\d+$/.test(i)).sort()).toEqual(['run7-0', 'run7-1', 'run7-2']);
    const first = server.arrivals.find((a) => a.requestId === 'run7-0')!.body.messages;
    expect(server.arrivals[1].body.messages).toEqual(first);
    expect(server.arrivals[2].body.messages).toEqual(first);
    expect(out.summary.counts.total).toBe(3);
    expect(out.summary.verdict).toBe('passed');
  });

  it('--goodput: request_goodput is written and a threshold can gate on it', async () => {
    server = await startSseServer((a) =>
      idx(a.requestId) === 0 ? { kind: 'ok', tokens: 3, delayMs: 600 } : { kind: 'ok', tokens: 3 },
    );
    const out = await runBenchmark(
      config(server.url, { numPrompts: 4, goodput: { e2el: 300 }, thresholds: ['request_goodput>0'] }),
    );
    const saved = JSON.parse(readFileSync(out.resultFile!, 'utf8'));
    // Request 0 takes > 600 ms, so 3 of the 4 meet the 300 ms e2el SLO (generous: a loaded CI box).
    expect(saved.request_goodput).toBeCloseTo(3 / saved.duration, 9);
    expect(saved.request_goodput).toBeLessThan(saved.request_throughput);
    expect(out.summary.verdict).toBe('passed');
  });

  it('ramp-up: arrivals follow the schedule, the result names and records the ramp, and the traffic lines are logged', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const lines: string[] = [];
    const rampUp = { strategy: 'linear' as const, startRps: 20, endRps: 60 };
    const sentAt: number[] = [];
    const out = await runBenchmark(config(server.url, { numPrompts: 12, maxConcurrency: null, rampUp }), {
      log: (l) => lines.push(l),
      onEvent: (e) => {
        if (e.type === 'request.sent') sentAt[e.index] = e.t;
      },
    });
    expect(out.summary.verdict).toBe('passed');
    expect(lines).toContain('Traffic ramp-up strategy: linear.');
    expect(out.resultFile).toMatch(/openai-chat-omni-ramp-up-linear-20qps-60qps-MiniCPM-o-4_5-\d{8}-\d{6}\.json$/);
    const saved = JSON.parse(readFileSync(out.resultFile!, 'utf8'));
    expect(saved).toMatchObject({
      ramp_up_strategy: 'linear',
      ramp_up_start_rps: 20,
      ramp_up_end_rps: 60,
      request_rate: 'inf',
    });
    // 11 intervals drawn at 20…60 RPS: the ramp passes every whole RPS from 20 to 60.
    expect(saved.rps_change_events.map((e: { rps: number }) => e.rps)).toEqual(
      Array.from({ length: 41 }, (_, i) => 20 + i),
    );
    const offsets = arrivalOffsets(12, { mode: 'ramp-up', ...rampUp, burstiness: 1, seed: 0 });
    // Each is sent no earlier than scheduled, from the schedule's origin (the run clock's start, where event
    // times count from): measured from request 0 instead, a late request 0 made an on-time request 1 look early.
    // (At the send: with a connection per request, the default, the server's arrivals also carry each connect.)
    expect(server.arrivals).toHaveLength(12);
    for (let i = 0; i < 12; i++) expect(sentAt[i] / 1000).toBeGreaterThanOrEqual(offsets[i] - 0.005);
  });

  it('many warmups under a caller signal (the dashboard passes one) add no listener per warmup to it', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const ctrl = new AbortController();
    try {
      const out = await runBenchmark(config(server.url, { numPrompts: 2, numWarmups: 25, maxConcurrency: null }), {
        signal: ctrl.signal,
      });
      expect(out.summary.verdict).toBe('passed');
      await new Promise((r) => setImmediate(r)); // process warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    expect(server.arrivals.filter((a) => a.requestId.includes('-warmup-'))).toHaveLength(25);
  });

  it('an interrupt during the warmups stops them and the run sends nothing timed', async () => {
    server = await startSseServer((a) => (a.requestId.includes('-warmup-') ? { kind: 'hang' } : { kind: 'ok' }));
    const ctrl = new AbortController();
    const run = runBenchmark(config(server.url, { numPrompts: 3, numWarmups: 12, maxConcurrency: 4 }), {
      signal: ctrl.signal,
    });
    await server.waitForArrivals(4);
    ctrl.abort();
    const out = await run;
    expect(out.summary.verdict).toBe('interrupted');
    expect(server.arrivals.filter((a) => a.requestId.includes('-warmup-'))).toHaveLength(4);
    expect(server.arrivals.filter((a) => /^run7-\d+$/.test(a.requestId))).toHaveLength(0);
    await expect.poll(() => server!.openSockets, { timeout: 2000 }).toBe(0);
  });

  it("logs vllm bench serve's preamble, line for line as the golden console has it", async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const lines: string[] = [];
    await runBenchmark(config(server.url, { numPrompts: 1, maxConcurrency: 1 }), { log: (l) => lines.push(l) });
    const golden = readJson<{ console_stdout: string }>('aggregate_cases1-3.expected.json').console_stdout.split('\n');
    // The golden run predates OMNI-NEW's "Per-request timeout: …" line (ours adds the breaker state and the
    // request budget: a 2-token request's is the floor, 32 MiB);
    // vLLM then prints a termplotlib tip, which stallscope has no reason to print.
    expect(lines[0]).toMatch(/^Per-request timeout: 5s; fail-fast on timeout: off; request budget: 32 MiB$/);
    expect(lines.slice(1, 7)).toEqual(golden.slice(0, 6));
  });

  it('an unreachable target with a ready check is errored, quickly, not a hang', async () => {
    const port = await refusedPort();
    const t0 = performance.now();
    const lines: string[] = [];
    const rampUp = { strategy: 'linear' as const, startRps: 1, endRps: 5 };
    const out = await runBenchmark(config(`http://127.0.0.1:${port}`, { readyCheckTimeoutS: 0.5, rampUp }), {
      log: (l) => lines.push(l),
    });
    expect(out.summary.verdict).toBe('errored');
    // The timed run never started: no traffic lines, no ramp-up steps in the result.
    expect(lines.join('\n')).not.toMatch(/Starting main benchmark run|Traffic/);
    expect(out.result).not.toHaveProperty('rps_change_events');
    expect(out.summary.verdictReasons.join(' ')).toMatch(/not ready/);
    expect([...out.statuses].every((s) => s === 'not_dispatched')).toBe(true);
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('an abort signal interrupts: verdict interrupted, partial result written with completed outputs', async () => {
    server = await startSseServer((a) => (idx(a.requestId) === 0 ? { kind: 'ok' } : { kind: 'hang-after-headers' }));
    const ctrl = new AbortController();
    const run = runBenchmark(config(server.url, { numPrompts: 5, maxConcurrency: 2, timeouts: { totalS: 30 } }), {
      signal: ctrl.signal,
    });
    await server.waitForArrivals(3);
    ctrl.abort();
    const out = await run;
    expect(out.summary.verdict).toBe('interrupted');
    expect(out.statuses.at(0)).toBe('completed');
    const saved = JSON.parse(readFileSync(out.resultFile!, 'utf8'));
    expect(saved.verdict).toBe('interrupted');
    expect(saved.generated_texts[0]).not.toBe('');
    expect(saved.not_dispatched_requests).toBe(2);
  });

  it('throws a StallscopeError for a bad config before anything is sent', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    await expect(runBenchmark(config(server.url, { maxConcurrency: 0 }))).rejects.toBeInstanceOf(StallscopeError);
    expect(server.arrivals).toHaveLength(0);
  });
});

describe('runBenchmark interrupted before the clock starts', () => {
  it('a signal during the ready check is interrupted, not errored', async () => {
    const port = await refusedPort();
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 150);
    const out = await runBenchmark(config(`http://127.0.0.1:${port}`, { readyCheckTimeoutS: 10 }), {
      signal: ctrl.signal,
    });
    expect(out.summary.verdict).toBe('interrupted');
    expect([...out.statuses].every((s) => s === 'not_dispatched')).toBe(true);
  });
});

describe('runBenchmark with a trace (self-timed)', () => {
  it('sends each request at its own timestamp', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    const trace = fileURLToPath(new URL('../../fixtures/datasets/trace.jsonl', import.meta.url));
    const sent: number[] = [];
    const out = await runBenchmark(
      config(server.url, { dataset: { name: 'trace', path: trace }, numPrompts: 10, requestRate: 1000 }),
      {
        onEvent: (e) => {
          if (e.type === 'request.queued') sent[e.index] = e.t;
        },
      },
    );
    expect(out.summary.verdict).toBe('passed');
    // Timestamps 0, 0.05, 0.1 s (ms on the run clock); a request rate of 1000/s would have queued all three within ~3 ms.
    expect(sent[0]).toBeLessThan(40);
    expect(sent[1]).toBeGreaterThanOrEqual(49);
    expect(sent[2]).toBeGreaterThanOrEqual(99);
    expect(server.arrivals.find((a) => a.requestId === 'run7-2')!.body.modalities).toEqual(['text']);
  });
});
