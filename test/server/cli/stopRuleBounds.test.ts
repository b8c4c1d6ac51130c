/**
 * A stop rule or a duration no timer can hold is refused by `stallscope bench`
 * (the real CLI, a child process) before anything is sent: `no_progress>=S`
 * with S × 1000 past 2³¹ − 1 used to be accepted, its timer overflowed to
 * 1 ms and printed thousands of TimeoutOverflowWarning lines while the run went on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const bench = (url: string, ...extra: string[]) =>
  runBenchChild([
    '--model',
    'm',
    '--base-url',
    url,
    '--dataset-name',
    'random',
    '--random-input-len',
    '4',
    '--random-output-len',
    '4',
    '--num-prompts',
    '2',
    '--omni-request-timeout-s',
    '2',
    ...extra,
  ]).done;

describe('stallscope bench refuses what a timer or a rule cannot mean, before anything is sent', () => {
  it('no_progress past 24 h (its timer would overflow to 1 ms): exit 2, the rule quoted, no request', async () => {
    server = await startSseServer(() => ({ kind: 'hang' }));
    const r = await bench(server.url, '--stop-on', 'no_progress>=2147484');
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("stop rule 'no_progress>=2147484': the seconds must be at most 86400 (24 h");
    expect(server.arrivals).toHaveLength(0);
  }, 20_000);

  it('a threshold its key can never reach: exit 2 with the reason, no request', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const r = await bench(server.url, '--stop-on', 'mean_e2el_ms<=-1');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("stop rule 'mean_e2el_ms<=-1': can never trip: mean_e2el_ms is never below 0");
    expect(server.arrivals).toHaveLength(0);
  }, 20_000);
});
