/**
 * Each stop rule against real loopback servers (docs/design.md#stop-rules):
 * it trips exactly at the request its rule names — not one earlier — no
 * request is sent after the one whose end tripped it, the run ends
 * failed_closed with the completed outputs kept, and `stopped_by` records
 * the rule, its value and its evidence.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StallscopeError } from '#shared/errors.ts';
import { runBenchmark } from '#server/engine/engine.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { testBenchConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import { indexOfId, seededFailures, startFailingServer } from '#test/helpers/failingServer.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** One request at a time, so "the request whose end trips it" is the last one the server saw. */
async function run(over: Partial<FlatBenchConfig>) {
  const events: BenchEvent[] = [];
  const out = await runBenchmark(
    testBenchConfig(server!.url, { numPrompts: 30, maxConcurrency: 1, percentileMetrics: ['ttft', 'e2el'], ...over }),
    { warmClient: false, onEvent: (e) => events.push(e) },
  );
  return { out, events, stopped: out.result.stopped_by as Record<string, any> | null };
}

const evidence = (s: Record<string, any> | null): number[] => s?.requests.map((r: { index: number }) => r.index);

describe('errors>=N', () => {
  it('at concurrency 1 against a server failing every 2nd request, errors>=3 sends exactly 6', async () => {
    server = await startFailingServer((i) => i % 2 === 1);
    const { out, events, stopped } = await run({ stopOn: ['errors>=3'] });
    expect(server.arrivals.map((a) => indexOfId(a.requestId))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(stopped).toMatchObject({ rule: 'errors>=3', kind: 'errors', value: 3, omitted: 0 });
    expect(evidence(stopped)).toEqual([1, 3, 5]);
    expect(stopped!.requests[0].request_id).toBe('test-1');
    expect(out.summary.verdict).toBe('failed_closed');
    expect([...out.statuses].slice(0, 7)).toEqual([
      'completed',
      'failed',
      'completed',
      'failed',
      'completed',
      'failed',
      'not_dispatched',
    ]);
    // Completed outputs kept; the unsent rest counted as the stop's cancellations.
    expect(out.result.completed).toBe(3);
    expect(out.result.not_dispatched_requests).toBe(24);
    expect(out.result.cancelled_after_timeout_requests).toBe(24);
    expect(out.result.stop_on).toEqual(['errors>=3']);
    expect(out.result.fail_fast_tripped).toBe(true);
    expect(out.result.fail_fast_cause).toBeNull();
    expect(out.summary.verdictReasons).toContain(
      'the stop rule errors>=3 stopped the run at ' +
        `${(stopped!.at_s as number).toFixed(2)} s: 3 requests failed (#1, #3, #5)`,
    );
    // The live stream says it: run.stopped after the tripping request's end, before the unsent reports.
    const at = events.findIndex((e) => e.type === 'run.stopped');
    expect(events.slice(0, at).filter((e) => e.type === 'request.failed')).toHaveLength(3);
    expect(events[at]).toMatchObject({ type: 'run.stopped', stoppedBy: { rule: 'errors>=3', value: 3 } });
  });

  it('a trip at the very last request, with nothing left to cancel, still fails closed', async () => {
    server = await startFailingServer((i) => i % 2 === 1);
    const { out, stopped } = await run({ stopOn: ['errors>=3'], numPrompts: 6 });
    expect(server.arrivals).toHaveLength(6);
    expect(stopped).toMatchObject({ rule: 'errors>=3', value: 3 });
    expect(out.result.not_dispatched_requests).toBe(0);
    expect(out.result.cancelled_after_timeout_requests).toBe(0);
    expect(out.summary.verdict).toBe('failed_closed'); // not merely `failed`: a rule stopped it
  });

  it('a run that ends before its count never trips, and passes as any run would', async () => {
    server = await startFailingServer((i) => i === 2);
    const { out, stopped } = await run({ stopOn: ['errors>=2'], numPrompts: 6 });
    expect(server.arrivals).toHaveLength(6);
    expect(stopped).toBeNull();
    expect(out.summary.verdict).toBe('failed'); // one request failed; no stop
    expect(out.result.fail_fast_tripped).toBe(false);
  });
});

/** Where each rule must trip over `fails`, computed here from the rule's definition, independently of the engine. */
function expectedTrip(fails: boolean[], rule: 'errors' | 'consecutive' | 'rate'): number {
  let errors = 0;
  let streak = 0;
  for (let i = 0; i < fails.length; i++) {
    if (rule === 'errors' && fails[i] && ++errors >= 4) return i;
    if (rule === 'consecutive') {
      streak = fails[i] ? streak + 1 : 0;
      if (streak >= 2) return i;
    }
    if (rule === 'rate' && i + 1 >= 6) {
      const window = fails.slice(i + 1 - 6, i + 1);
      if (window.filter(Boolean).length / 6 > 0.5) return i;
    }
  }
  return -1;
}

describe('against a server failing a seeded fraction of requests', () => {
  const RULES = [
    ['errors', 'errors>=4'],
    ['consecutive', 'consecutive_errors>=2'],
    ['rate', 'error_rate>0.5,window=6'],
  ] as const;
  for (const seed of [3, 11, 29]) {
    for (const [name, rule] of RULES) {
      it(`seed ${seed}: ${rule} trips at the request the rule names, and sends nothing after it`, async () => {
        const fails = seededFailures(seed, 0.4, 30);
        const trip = expectedTrip(fails, name);
        expect(trip, 'the seed must make the rule trip within the run').toBeGreaterThanOrEqual(0);
        server = await startFailingServer((i) => fails[i]);
        const { out, stopped } = await run({ stopOn: [rule] });
        expect(server.arrivals).toHaveLength(trip + 1);
        expect(stopped).toMatchObject({ rule });
        expect(out.statuses.at(trip)).toBe('failed'); // the tripping end is a failure
        expect([...out.statuses].slice(trip + 1).every((s) => s === 'not_dispatched')).toBe(true);
        expect(evidence(stopped)).toContain(trip);
        if (name === 'rate') expect(stopped).toMatchObject({ over: 6 });
      });
    }
  }
});

describe('error_rate with a minimum', () => {
  it('never trips below it: every request fails, error_rate>0.5,min=5 stops at the 5th end exactly', async () => {
    server = await startFailingServer(() => true);
    const { stopped } = await run({ stopOn: ['error_rate>0.5,min=5'] });
    expect(server.arrivals).toHaveLength(5);
    expect(stopped).toMatchObject({ kind: 'error_rate', value: 1, over: 5 });
    expect(evidence(stopped)).toEqual([0, 1, 2, 3, 4]);
  });

  it('completed requests are no errors: a run of completions never trips error_rate>0', async () => {
    server = await startFailingServer(() => false);
    const { stopped, out } = await run({ stopOn: ['error_rate>0,min=1'], numPrompts: 8 });
    expect(stopped).toBeNull();
    expect(out.summary.verdict).toBe('passed');
  });
});

describe('timeouts>=N', () => {
  it('trips at the Nth structural timeout, with every timeout as evidence and the Nth as the cause', async () => {
    server = await startSseServer((a) => ([1, 3].includes(indexOfId(a.requestId)) ? { kind: 'hang' } : { kind: 'ok' }));
    const { out, stopped } = await run({ stopOn: ['timeouts>=2'], timeouts: { totalS: 0.3 } });
    expect(server.arrivals).toHaveLength(4);
    expect(stopped).toMatchObject({ kind: 'timeouts', rule: 'timeouts>=2', value: 2 });
    expect(evidence(stopped)).toEqual([1, 3]);
    expect(out.result.fail_fast_cause).toMatchObject({ request_index: 3, kind: 'total' });
    expect([...out.statuses].slice(0, 5)).toEqual([
      'completed',
      'timed_out',
      'completed',
      'timed_out',
      'not_dispatched',
    ]);
  });

  it('--omni-fail-fast-on-timeout is timeouts>=1: the first timeout trips, recorded as that rule', async () => {
    server = await startSseServer((a) => (indexOfId(a.requestId) === 1 ? { kind: 'hang' } : { kind: 'ok' }));
    const { out, stopped } = await run({ failFast: true, timeouts: { totalS: 0.3 } });
    expect(server.arrivals).toHaveLength(2);
    expect(stopped).toMatchObject({ rule: 'timeouts>=1', value: 1 });
    expect(out.result.stop_on).toEqual(['timeouts>=1']);
  });
});

describe('a live threshold', () => {
  it('trips only after its minimum: every answer is slow, p99_e2el_ms>30,min=4 stops at the 4th completion', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 4, delayMs: 60 }));
    const { out, stopped } = await run({ stopOn: ['p99_e2el_ms>30,min=4'] });
    expect(server.arrivals).toHaveLength(4);
    expect(stopped).toMatchObject({ kind: 'metric', rule: 'p99_e2el_ms>30,min=4', over: 4 });
    expect(stopped!.value).toBeGreaterThan(30);
    expect(evidence(stopped)).toEqual([3]);
    expect(out.result.completed).toBe(4);
    expect(out.summary.verdict).toBe('failed_closed');
  });

  it('without a minimum it is read from the first completion', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 4, delayMs: 60 }));
    const { stopped } = await run({ stopOn: ['p99_e2el_ms>30'] });
    expect(server.arrivals).toHaveLength(1);
    expect(stopped).toMatchObject({ over: 1 });
  });

  it('a threshold that holds never trips', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 4 }));
    const { out, stopped } = await run({ stopOn: ['p99_e2el_ms>5000,min=2'], numPrompts: 8 });
    expect(stopped).toBeNull();
    expect(out.summary.verdict).toBe('passed');
  });
});

describe('refused before anything is sent', () => {
  it('a count beyond the requests a trace really holds (fewer than --num-prompts), naming the field', async () => {
    server = await startFailingServer(() => true);
    const dir = mkdtempSync(join(tmpdir(), 'stallscope-rules-'));
    try {
      const trace = join(dir, 't.jsonl');
      writeFileSync(trace, [0, 1, 2].map((i) => JSON.stringify({ timestamp: i * 0.01, prompt: `p ${i}` })).join('\n'));
      const config = testBenchConfig(server.url, {
        dataset: { name: 'trace', path: trace },
        numPrompts: 10,
        stopOn: ['errors>=5'],
      });
      const refused = await runBenchmark(config, { warmClient: false }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StallscopeError);
      expect(refused).toMatchObject({ code: 'CONFIG_INVALID', field: 'limits.stopOn' });
      expect((refused as Error).message).toContain(
        "stop rule 'errors>=5': the count 5 is more than the run's 3 requests",
      );
      expect(server.arrivals).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
