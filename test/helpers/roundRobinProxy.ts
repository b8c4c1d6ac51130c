/**
 * An HTTP load balancer on 127.0.0.1:0 that sends each request — not each
 * connection — to the next of its upstreams in turn (per-request round
 * robin, as a layer-7 balancer with no session affinity does): a client on
 * one keep-alive connection reaches every upstream. Counts the requests each
 * upstream took; owns its sockets and agent and releases them on close.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Requests forwarded to each upstream, by method and path without the query (`POST /api/ingest`). */
  readonly taken: Map<string, number>[];
  /** Milliseconds from each request's arrival to its reply's end, by method and path, for requests matching `timed`. */
  readonly latencies: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreams: string[], timed?: RegExp): Promise<RoundRobinProxy> {
  const latencies: number[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const taken = upstreams.map(() => new Map<string, number>());
  const sockets = new Set<Socket>();
  let next = 0;
  const server = createServer((req, res) => {
    const k = next++ % upstreams.length;
    const key = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
    taken[k].set(key, (taken[k].get(key) ?? 0) + 1);
    const to = new URL(req.url ?? '/', upstreams[k]);
    if (timed?.test(key)) {
      const t0 = performance.now();
      res.on('finish', () => latencies.push(performance.now() - t0));
    }
    const out = request(to, { method: req.method, headers: { ...req.headers, host: to.host }, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    taken,
    latencies,
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
