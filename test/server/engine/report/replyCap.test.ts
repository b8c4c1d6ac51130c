/**
 * The reporter reads at most REPLY_READ_CAP bytes of a dashboard's reply: a
 * URL that answers with an endless body (not a dashboard, or a hostile one)
 * costs the benchmark 64 KiB, not its memory.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRemoteReporter, REPLY_READ_CAP } from '#server/engine/report/remote.ts';

describe('RemoteReporter against a reply that never ends', () => {
  it('reads 64 KiB of it, stops the stream, and closes within its bound', async () => {
    let written = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && written < 512 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        pump();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const logs: string[] = [];
    const rss = process.memoryUsage().rss;
    const reporter = createRemoteReporter({
      url,
      runId: 'r',
      config: {},
      log: (l) => logs.push(l),
      closeTimeoutMs: 5000,
    });
    const t0 = performance.now();
    await reporter.close();
    expect(performance.now() - t0).toBeLessThan(5000);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
    expect(REPLY_READ_CAP).toBe(64 * 1024);
  });
});
