/**
 * The repro-server's telemetry sink says what the dashboard did not store:
 * one line per refusal cause when first seen (with the events that post
 * cost), the totals at close — against a real dashboard with a token (401 for
 * no token and for a wrong one, 403 for a report token on another pipeline's
 * run, a 200 whose events joined no run) and a plain HTTP server answering
 * 409, 413 and 503. Before, every one of these was dropped without a word.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { HttpTelemetrySink } from '#server/repro/telemetry/httpSink.ts';
import type { TelemetryEvent } from '#shared/protocol/telemetry.ts';

const ADMIN = 'admin-token-telemetry';
const HINT = "set $STALLSCOPE_TELEMETRY_TOKEN to a report token ('stallscope token create --scope report')";

const op = (i: number): TelemetryEvent =>
  ({
    v: 1,
    ts: Date.now(),
    type: 'c2w.op.begin',
    workerId: 0,
    opId: i,
    requestIds: [`nobody-${i}`],
    batchSize: 1,
  }) as TelemetryEvent;

/** Posts `sizes[k]` events in post k (a flush each), closes, and returns what the sink printed. */
async function send(url: string, token: string | undefined, sizes: number[]): Promise<string[]> {
  const lines: string[] = [];
  const sink = new HttpTelemetrySink({ url, token, log: (l) => lines.push(l), flushIntervalMs: 1_000_000 });
  let i = 0;
  for (const n of sizes) {
    for (let k = 0; k < n; k++) sink.push(op(i++));
    await sink.flush();
  }
  await sink.close();
  return lines;
}

async function tokens(url: string) {
  const create = async (scope: string, name: string) => {
    const r = await fetch(`${url}/api/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope, name }),
    });
    return ((await r.json()) as { token: string }).token;
  };
  return { create };
}

describe('telemetry refused by a real dashboard', () => {
  it('no token: one line when first refused, the totals at close', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const lines = await send(`${url}/api/ingest`, undefined, [3, 2, 4]);
    const cause = `401 API_UNAUTHORIZED (no token was sent: ${HINT})`;
    expect(lines).toEqual([
      `telemetry: the dashboard refused 3 events: ${cause}`,
      `telemetry: 9 events refused by the dashboard: ${cause} ×3 posts`,
    ]);
  });

  it("a wrong token, and a report token on another pipeline's run", async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    expect(await send(`${url}/api/ingest`, 'sst_report_wrong', [2, 1])).toEqual([
      'telemetry: the dashboard refused 2 events: 401 API_UNAUTHORIZED (missing or wrong token)',
      'telemetry: 3 events refused by the dashboard: 401 API_UNAUTHORIZED (missing or wrong token) ×2 posts',
    ]);
    const { create } = await tokens(url);
    const mine = await create('report', 'pipeline-a');
    const theirs = await create('report', 'pipeline-b');
    const made = await fetch(`${url}/api/runs/external`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mine}`, 'content-type': 'application/json' },
      body: JSON.stringify({ runId: 'run-a' }),
    });
    expect(made.status).toBe(201);
    const lines = await send(`${url}/api/ingest?runId=run-a`, theirs, [1, 1]);
    const forbidden =
      "403 API_FORBIDDEN_SCOPE (the token's scope does not allow this: run run-a was not created with this report token)";
    expect(lines).toEqual([
      `telemetry: the dashboard refused 1 event: ${forbidden}`,
      `telemetry: 2 events refused by the dashboard: ${forbidden} ×2 posts`,
    ]);
  });

  it('a 200 whose events joined no run is told once, with the count', async ({ serveApp }) => {
    const { url } = await serveApp({ token: ADMIN });
    const report = await (await tokens(url)).create('report', 'pipeline-u');
    const lines = await send(`${url}/api/ingest`, report, [3, 2]);
    expect(lines).toEqual([
      'telemetry: the dashboard took 3 events but joined them to no run (unjoined): no live run holds their request ids and the post named no runId',
      'telemetry: 5 events unjoined by the dashboard ×2 posts',
    ]);
  });
});

describe('telemetry refused by any HTTP server', () => {
  it('409, 413 and 503 are each told once; the totals name each cause with its events', async () => {
    const answers = [
      [409, '{"code":"API_CONFLICT","message":"run r ended (finished)"}'],
      [413, '{"code":"API_PAYLOAD_TOO_LARGE","message":"request body too large"}'],
      [409, '{"code":"API_CONFLICT","message":"run r ended (finished)"}'],
      [503, '<html>bad gateway</html>'],
    ] as const;
    let k = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const [status, body] = answers[k++ % answers.length];
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/ingest`;
    const lines = await send(url, 'tok', [1, 2, 3, 4]);
    await new Promise<void>((r) => server.close(() => r()));
    expect(lines).toEqual([
      'telemetry: the dashboard refused 1 event: 409 API_CONFLICT (run r ended (finished))',
      'telemetry: the dashboard refused 2 events: 413 API_PAYLOAD_TOO_LARGE (request body too large)',
      'telemetry: the dashboard refused 4 events: 503 HTTP 503 (<html>bad gateway</html>)',
      'telemetry: 10 events refused by the dashboard: 409 API_CONFLICT (run r ended (finished)) ×2 posts (4 events); ' +
        '413 API_PAYLOAD_TOO_LARGE (request body too large) ×1 post (2 events); 503 HTTP 503 (<html>bad gateway</html>) ×1 post (4 events)',
    ]);
  });

  it('an unreachable dashboard is told once too', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const lines = await send(`http://127.0.0.1:${port}/api/ingest`, 'tok', [2, 2]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^telemetry: 2 events could not be delivered: unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/,
    );
    expect(lines[1]).toMatch(
      /^telemetry: 4 events not delivered to the dashboard: unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\) ×2 posts$/,
    );
  });
});
