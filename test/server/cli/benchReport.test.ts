import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { run } from '#server/cli/bench.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';

let target: TestServer | null = null;
let dashboard: Server | null = null;
afterEach(async () => {
  await target?.close();
  target = null;
  await new Promise((r) => (dashboard ? dashboard.close(r) : r(undefined)));
  dashboard = null;
  vi.restoreAllMocks();
});

describe('stallscope bench --report-to', () => {
  it('streams every engine event of the run to the dashboard', async () => {
    target = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const posts: { path: string; body: { events?: BenchEvent[]; runId?: string } }[] = [];
    dashboard = createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        posts.push({ path: req.url ?? '', body: JSON.parse(data || '{}') });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => dashboard!.listen(0, '127.0.0.1', r));
    const dashUrl = `http://127.0.0.1:${(dashboard.address() as AddressInfo).port}`;
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const code = await run([
      '--base-url',
      target.url,
      '--model',
      'm',
      '--num-prompts',
      '3',
      '--random-input-len',
      '4',
      '--run-id',
      'rep1',
      '--report-to',
      dashUrl,
    ]);
    expect(code).toBe(0);
    expect(posts[0].path).toBe('/api/runs/external');
    expect(posts[0].body.runId).toBe('rep1');
    const events = posts.filter((p) => p.path === '/api/runs/rep1/events').flatMap((p) => p.body.events ?? []);
    expect(events[0].type).toBe('run.started');
    expect(events.at(-1)!.type).toBe('run.finished');
    expect(events.filter((e) => e.type === 'request.completed')).toHaveLength(3);
  });
});
