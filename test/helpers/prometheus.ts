/**
 * A real Prometheus (Debian's `prometheus`, installed by .ci/setup) scraping
 * one target every second, on a free loopback port, with its TSDB in `dir`;
 * `query` is its HTTP API's instant query. `stop()` ends it (SIGTERM, then
 * SIGKILL after 5 s).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { debianTool } from './tools.ts';
import { waitFor } from './waitFor.ts';

export interface PromSample {
  metric: Record<string, string>;
  value: number;
}

export interface Prometheus {
  url: string;
  query(q: string): Promise<PromSample[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** Starts Prometheus scraping `target` (`127.0.0.1:port`) and waits until it answers queries. */
export async function startPrometheus(dir: string, target: string): Promise<Prometheus> {
  const bin = debianTool('/usr/bin/prometheus', 'prometheus');
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    `global: { scrape_interval: 1s, evaluation_interval: 1s }\n` +
      `scrape_configs:\n  - job_name: stallscope\n    static_configs: [{ targets: ['${target}'] }]\n`,
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    bin,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const query = async (q: string): Promise<PromSample[]> => {
    const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`, { signal: AbortSignal.timeout(5000) });
    const body = (await r.json()) as {
      status: string;
      data: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (body.status !== 'success') throw new Error(`query ${q}: ${JSON.stringify(body)}`);
    return body.data.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]) }));
  };
  try {
    await waitFor(
      () =>
        fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) }).then(
          (r) => r.ok,
          () => false,
        ),
      20_000,
      100,
    );
  } catch (e) {
    await stop();
    throw new Error(`prometheus did not become ready: ${String(e)}\n${stderr}`, { cause: e });
  }
  return { url, query, stop };
}
