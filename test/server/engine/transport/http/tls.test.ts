/**
 * HTTPS targets against a loopback TLS server whose self-signed certificate
 * is generated at test time with the openssl CLI: without --insecure every
 * request fails with an error that says the certificate was refused and names
 * the flag; with it the run is clean.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig, type FlatBenchConfig } from '#test/helpers/benchConfig.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';

let dir: string;
let server: TestServer;

/** A P-256 key and a one-day self-signed certificate for 127.0.0.1. */
function selfSigned(into: string): { key: string; cert: string } {
  const key = join(into, 'key.pem');
  const cert = join(into, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'pipe', timeout: 10_000 },
    ); // prettier-ignore
  } catch (err) {
    throw new Error(
      `the openssl CLI is needed to make the test certificate (apt-get install openssl): ${String(err)}`,
      {
        cause: err,
      },
    );
  }
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-tls-'));
  server = await startSseServer(() => ({ kind: 'ok', tokens: 4, audioChunks: 1 }), { tls: selfSigned(dir) });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (over: Partial<FlatBenchConfig> = {}): RunConfig =>
  testBenchConfig(server.url, { runId: 'tls', percentileMetrics: ['ttft', 'e2el'], ...over });

describe('https targets', () => {
  it('the server is https with a self-signed certificate', () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('without --insecure: every request fails with a certificate error naming --insecure', async () => {
    const before = server.arrivals.length;
    const out = await runBenchmark(config());
    expect(out.summary.counts.completed).toBe(0);
    expect([...out.statuses]).toEqual(['failed', 'failed', 'failed']);
    for (const r of out.records) {
      expect(r.error).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(r.error).toContain("the target's TLS certificate was not accepted; --insecure skips certificate checks");
    }
    expect(server.arrivals.length).toBe(before); // the handshake failed: no request reached the server
  });

  it('without --insecure, the ready check reports the certificate error and the run is errored', async () => {
    const out = await runBenchmark(config({ readyCheckTimeoutS: 1.2 }));
    expect(out.summary.verdict).toBe('errored');
    expect(out.summary.verdictReasons.join(' ')).toMatch(/DEPTH_ZERO_SELF_SIGNED_CERT.*--insecure/);
  });

  it('with --insecure (as the CLI parses it): a clean run over TLS', async () => {
    const { config: parsed } = parseBenchArgs(['--base-url', server.url, '--model', 'm', '--insecure']);
    expect(parsed.target.insecure).toBe(true);
    const before = server.arrivals.length;
    const out = await runBenchmark(config({ insecure: parsed.target.insecure }));
    expect([...out.statuses]).toEqual(['completed', 'completed', 'completed']);
    expect([...out.records].every((r) => r.error === '' && r.outputTokens > 0 && r.audioDuration > 0)).toBe(true);
    expect(out.summary.verdict).toBe('passed');
    expect(server.arrivals.length - before).toBe(3);
  });

  it('without the flag the CLI leaves certificate checks on', () => {
    expect(parseBenchArgs(['--base-url', server.url, '--model', 'm']).config.target.insecure).toBeUndefined();
  });
});
