/**
 * With --token, the embedded repro server gets the token through its environment:
 * `ps` shows a child's argv to every user of the machine, so neither the
 * telemetry URL nor any other argument may carry it.
 */
import { afterEach, describe, expect, vi } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { launchEmbeddedRepro, targetArgs, type LaunchOptions } from '#server/dashboard/runs/embeddedRepro.ts';
import { HttpTelemetrySink } from '#server/repro/telemetry/httpSink.ts';
import { optionsFromArgv } from '#server/cli/reproServer.ts';
import { TELEMETRY_TOKEN_ENV } from '#shared/protocol/telemetry.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';

const TOKEN = 'tok-3f9a1c-secret';
let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
  delete process.env[TELEMETRY_TOKEN_ENV];
});

describe('the token reaches the embedded repro server through its environment', () => {
  it('the run manager launches the target with the token out of its argv', async ({ newApp }) => {
    let launched: LaunchOptions | null = null;
    const app = await newApp({
      token: TOKEN,
      manager: {
        launchTarget: async (o) => {
          launched = o;
          throw new Error('stop here');
        },
      },
    });
    const r = await app.inject({
      method: 'POST',
      url: '/api/runs',
      headers: { 'x-stallscope-token': TOKEN },
      payload: { ...CODE2WAV_HANG.spec, numPrompts: 2 },
    });
    expect(r.statusCode, r.body).toBe(201);
    await vi.waitFor(() => expect(launched).not.toBeNull(), { timeout: 5000 });
    const o = launched! as LaunchOptions;
    expect(targetArgs(o).join(' ')).not.toContain(TOKEN);
    expect(o.telemetryToken).toBe(TOKEN);
  });

  it('a real child sees the token in its environment, not in its argv', async () => {
    const script = `process.stdout.write(JSON.stringify({argv: process.argv, token: process.env.${TELEMETRY_TOKEN_ENV} ?? null}) + '\\nstallscope repro-server listening on http://127.0.0.1:9\\n'); setTimeout(() => {}, 10000); process.on('SIGTERM', () => process.exit(0));`;
    const lines: string[] = [];
    const t = await launchEmbeddedRepro({
      spec: { kind: 'embedded', faults: [], watchdogTimeoutS: 0, workers: 1, maxBatch: 4 },
      model: 'm',
      telemetryUrl: 'http://127.0.0.1:1/api/ingest?runId=r',
      telemetryToken: TOKEN,
      command: [process.execPath, '-e', script, '--'],
      log: (l) => lines.push(l),
    });
    await t.stop(1000);
    const seen = JSON.parse(lines.find((l) => l.includes('"argv"'))!.replace('[target] ', '')) as {
      argv: string[];
      token: string | null;
    };
    expect(seen.token).toBe(TOKEN);
    expect(seen.argv.join(' ')).not.toContain(TOKEN);
    expect(seen.argv.join(' ')).toContain('--telemetry-url');
  });

  it('repro-server reads the token from the environment and sends it as x-stallscope-token', async () => {
    process.env[TELEMETRY_TOKEN_ENV] = TOKEN;
    expect(optionsFromArgv(['--telemetry-url', 'http://x/'])!.telemetry).toMatchObject({ token: TOKEN });
    let headers: IncomingHttpHeaders | null = null;
    server = createServer((req, res) => {
      headers = req.headers;
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const sink = new HttpTelemetrySink({ url: `http://127.0.0.1:${port}/api/ingest`, token: TOKEN });
    sink.push({ v: 1, ts: 1, type: 'worker.idle', workerId: 0 });
    await sink.close();
    expect(headers!['x-stallscope-token']).toBe(TOKEN);
  });
});
