import { describe, expect, vi } from 'vitest';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { run as benchRun } from '#server/cli/bench.ts';
import { startSseServer } from '#test/helpers/sseServer.ts';
import { createServer } from 'node:net';
import { createRemoteReporter } from '#server/engine/report/remote.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';
import { waitFor } from '#test/helpers/waitFor.ts';

const benchEvents = (id: string) => hangRunEvents(id).filter((e): e is BenchEvent => e.type !== 'telemetry');

describe('--report-to reporter', () => {
  it('streams a CLI run into the dashboard, which stores it like its own', async ({ serveApp }) => {
    const { app, url } = await serveApp();
    const logs: string[] = [];
    const rep = createRemoteReporter({
      url,
      runId: 'ci-1',
      config: { model: 'm', baseUrl: 'http://gpu:8000', apiKey: 'secret', metadata: { build: '9' } },
      log: (l) => logs.push(l),
      flushMs: 10,
    });
    for (const e of benchEvents('ci-1').slice(0, 5)) rep.onEvent(e);
    // Live while the CLI still runs (the reporter's first post loads its HTTP client first: not a fixed 100 ms).
    await waitFor(() => app.hub.isActive('ci-1'));
    for (const e of benchEvents('ci-1').slice(5)) rep.onEvent(e);
    await rep.close();
    expect(logs).toEqual([]);
    const d = (await app.inject({ url: '/api/runs/ci-1' })).json();
    expect(d).toMatchObject({ source: 'cli', status: 'finished', verdict: 'failed_closed', metadata: { build: '9' } });
    expect(JSON.stringify(d.config)).not.toContain('secret');
    expect(d.lastSeq).toBe(benchEvents('ci-1').length + 2);
  });

  it('stallscope bench --report-to: a CLI run shows up in the real dashboard, stored like its own', async ({
    serveApp,
  }) => {
    const { app, url } = await serveApp();
    const target = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const code = await benchRun([
        '--base-url',
        target.url,
        '--model',
        'm',
        '--num-prompts',
        '5',
        '--random-input-len',
        '4',
        '--run-id',
        'cli-run',
        '--metadata',
        'build=321',
        '--report-to',
        url,
      ]);
      expect(code).toBe(0);
    } finally {
      log.mockRestore();
      err.mockRestore();
      await target.close();
    }
    const d = (await app.inject({ url: '/api/runs/cli-run' })).json();
    expect(d).toMatchObject({
      source: 'cli',
      status: 'finished',
      verdict: 'passed',
      counts: { completed: 5 },
      target: target.url,
    });
    expect((await app.inject({ url: '/api/runs?metadata=build%3D321' })).json().total).toBe(1);
    expect((await app.inject({ url: '/api/runs/cli-run/requests' })).json().total).toBe(5);
  });

  it('sends the token from the URL', async ({ serveApp }) => {
    const { app, url } = await serveApp({ host: '0.0.0.0', token: 'tk' });
    const logs: string[] = [];
    const rep = createRemoteReporter({ url: `${url}/?token=tk`, runId: 'ci-2', config: {}, log: (l) => logs.push(l) });
    for (const e of benchEvents('ci-2')) rep.onEvent(e);
    await rep.close();
    expect(logs).toEqual([]);
    expect(sqliteOf(app.store).runs.get('ci-2')?.status).toBe('finished');
  });

  it('says once that the dashboard is unreachable and never blocks or throws', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const logs: string[] = [];
    const rep = createRemoteReporter({
      url: `http://127.0.0.1:${port}`,
      runId: 'x',
      config: {},
      log: (l) => logs.push(l),
      flushMs: 5,
    });
    const t0 = performance.now();
    for (let i = 0; i < 3; i++) for (const e of benchEvents('x')) rep.onEvent(e);
    expect(performance.now() - t0).toBeLessThan(50);
    await new Promise((r) => setTimeout(r, 50));
    await rep.close();
    // Said once when it fails, and how many events that cost when it closes.
    const n = 3 * benchEvents('x').length;
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatch(
      /^stallscope: --report-to http:\/\/127\.0\.0\.1:\d+: the run could not be delivered: unreachable \(.*ECONNREFUSED.*\); the benchmark goes on without the dashboard$/,
    );
    expect(logs[1]).toMatch(
      new RegExp(
        `^stallscope: --report-to \\S+: ${n} events not delivered to the dashboard: unreachable \\(.*\\) ×1 post$`,
      ),
    );
  });
});
