/**
 * Two `stallscope serve` processes on one PostgreSQL database behind a load
 * balancer that sends each request to the next process in turn
 * (docs/design.md#team-dashboard: any dashboard process takes any request for
 * any run). A real `stallscope bench --report-to` through the balancer, real
 * telemetry posted to the process that does not hold a run, and abandon and
 * delete on the other process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPgStore } from '#server/dashboard/store/pg/pgStore.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '#test/helpers/roundRobinProxy.ts';
import { startFastRepro } from '#test/helpers/reporterFleet.ts';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { completedRequest, outcome, runStarted, stallReport } from '#test/helpers/sampleEvents.ts';
import type { RequestRow } from '#shared/protocol/apiSchemas.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';

let cluster: PgCluster;
const servers: RunningServer[] = [];
const proxies: RoundRobinProxy[] = [];
let repro: { url: string; child: ChildProcess } | null = null;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  for (const p of proxies) await p.close();
  for (const s of servers) await s.stop();
  repro?.child.kill('SIGKILL');
  cluster?.destroy();
});

async function twoDashboards(): Promise<{ url: string; a: RunningServer; b: RunningServer }> {
  const url = await cluster.freshDatabase();
  const [a, b] = await Promise.all([
    startServer(undefined, { args: ['--database', url] }),
    startServer(undefined, { args: ['--database', url] }),
  ]);
  servers.push(a, b);
  return { url, a, b };
}

async function post(base: string, path: string, body: unknown, type = 'application/json') {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}
const getJson = async <T>(base: string, path: string): Promise<T> =>
  (await (await fetch(`${base}${path}`)).json()) as T;

async function storedEvents(url: string, runId: string): Promise<{ seq: number; event: RunEvent }[]> {
  const s = await openPgStore({ url });
  try {
    const list = await s.runReads.eventsAfter(runId, 0, 1_000_000);
    return list.map((e) => ({ seq: e.seq, event: JSON.parse(e.json) as RunEvent }));
  } finally {
    await s.close();
  }
}

describe('two dashboards behind a per-request round-robin balancer', () => {
  it('a run reported through the balancer ends complete, with one full row per request, each event once', async () => {
    const { url, a, b } = await twoDashboards();
    const lb = await startRoundRobinProxy([a.url, b.url]);
    proxies.push(lb);
    repro = await startFastRepro();
    const dir = mkdtempSync(join(tmpdir(), 'stallscope-lb-'));
    const N = 60;
    try {
      const bench = runBenchChild([
        ...['--base-url', repro.url, '--endpoint', '/v1/chat/completions', '--model', 'openbmb/MiniCPM-o-4_5'],
        ...['--dataset-name', 'random', '--random-input-len', '8', '--random-output-len', '8'],
        ...['--num-prompts', String(N), '--max-concurrency', '4', '--request-rate', 'inf', '--num-warmups', '0'],
        ...['--extra-body', '{"modalities":["text","audio"]}', '--save-result', '--result-dir', dir],
        ...['--result-filename', 'r.json', '--report-to', lb.url],
      ]);
      const done = await bench.done;
      expect(done.code, done.stderr).toBe(0);
      // The reporter said nothing was refused (today: a 409 from the process that did not create the run).
      expect(done.stderr).not.toMatch(/refused|gave up|unreachable/i);
      const file = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { completed: number };
      expect(file.completed).toBe(N);
      // Both processes took batches of the run (so the split really happened).
      const batches = lb.taken.map((t) =>
        [...t.entries()].filter(([k]) => /^POST \/api\/runs\/[^/]+\/events$/.test(k)).reduce((n, [, v]) => n + v, 0),
      );
      expect(Math.min(...batches)).toBeGreaterThan(0);

      const { runs } = await getJson<{ runs: { id: string }[] }>(a.url, '/api/runs?limit=5');
      expect(runs).toHaveLength(1);
      const runId = runs[0].id;
      await expect
        .poll(async () => (await getJson<{ status: string }>(b.url, `/api/runs/${runId}`)).status, { timeout: 10_000 })
        .toBe('finished');
      const run = await getJson<{ counts: { completed: number }; lastSeq: number }>(a.url, `/api/runs/${runId}`);
      expect(run.counts.completed).toBe(N);

      // Seqs 1..N with no gap, and each request's lifecycle events once each.
      const events = await storedEvents(url, runId);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
      const perType = new Map<string, number>();
      for (const { event } of events) {
        const e = event as { index?: number; outcome?: { index: number } };
        const index = e.index ?? e.outcome?.index;
        if (index !== undefined)
          perType.set(`${event.type}#${index}`, (perType.get(`${event.type}#${index}`) ?? 0) + 1);
      }
      for (let i = 0; i < N; i++)
        for (const type of ['request.queued', 'request.sent', 'request.first_token', 'request.completed'])
          expect(perType.get(`${type}#${i}`), `${type} of request ${i}`).toBe(1);
      expect(events.filter((e) => e.event.type === 'run.finished')).toHaveLength(1);

      // One row per request, with the times of events that reached either process.
      const { requests } = await getJson<{ requests: RequestRow[] }>(b.url, `/api/runs/${runId}/requests?limit=500`);
      expect(requests).toHaveLength(N);
      for (const r of requests) {
        expect(r.status, `request ${r.index}`).toBe('completed');
        for (const k of ['queuedT', 'sentT', 'firstTokenT', 'firstAudioT', 'endT'] as const)
          expect(r[k], `${k} of request ${r.index}`).not.toBeNull();
      }
      // Neither process keeps it live (the one that did not end it let it go).
      for (const s of [a, b])
        await expect
          .poll(async () => (await getJson<{ activeRuns: string[] }>(s.url, '/api/health')).activeRuns)
          .toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('telemetry posted to the process that does not hold the run joins it (by request id, no runId)', async () => {
    const { url, a, b } = await twoDashboards();
    expect((await post(a.url, '/api/runs/external', { runId: 'held', config: {} })).status).toBe(201);
    expect((await post(a.url, '/api/runs/held/events', { events: [runStarted('held', 4)] })).status).toBe(200);
    const sent = completedRequest('held', 0).slice(0, 2); // queued, sent: request held-0 is in flight on A
    expect((await post(a.url, '/api/runs/held/events', { events: sent })).status).toBe(200);
    const report = stallReport('held', 7, 'hift');
    const line = JSON.stringify({ v: 1, type: 'watchdog.stall', ts: Date.now(), report });
    const r = await post(b.url, '/api/ingest', `${line}\n`, 'application/x-ndjson');
    expect(r).toMatchObject({ status: 200, json: { accepted: 1, unjoined: 0, rejected: 0 } });
    const run = await getJson<{ stallReports: { report: { phase: string } }[] }>(a.url, '/api/runs/held');
    expect(run.stallReports.map((s) => s.report.phase)).toEqual(['hift']);
    const telemetry = (await storedEvents(url, 'held')).filter((e) => e.event.type === 'telemetry');
    expect(telemetry).toHaveLength(1);
    // A folds what B stored before its next batch: the run's first timeout names the phase only B was told of.
    const timedOut: RunEvent = {
      type: 'request.timed_out',
      t: 4000,
      kind: 'total',
      outcome: outcome('held', 0, 'timed_out', { error: 'total timeout after 4 s', sentT: 1 }),
    };
    expect((await post(a.url, '/api/runs/held/events', { events: [timedOut] })).status).toBe(200);
    const first = await getJson<{ firstTimeout: { phase: string } | null }>(a.url, '/api/runs/held');
    expect(first.firstTimeout?.phase).toBe('hift');
    expect((await getJson<{ telemetry: { unjoined: number } }>(b.url, '/api/health')).telemetry.unjoined).toBe(0);
  });

  it('abandon on the other process ends the run for both; delete there is refused while it runs', async () => {
    const { a, b } = await twoDashboards();
    expect((await post(a.url, '/api/runs/external', { runId: 'gone', config: {} })).status).toBe(201);
    expect((await post(a.url, '/api/runs/gone/events', { events: [runStarted('gone', 4)] })).status).toBe(200);
    const del = await fetch(`${b.url}/api/runs/gone`, { method: 'DELETE' });
    expect(del.status).toBe(409);
    expect(((await del.json()) as { message: string }).message).toMatch(/mark the run abandoned/);
    expect((await post(b.url, '/api/runs/gone/abandon', {})).status).toBe(200);
    await expect
      .poll(async () => (await getJson<{ activeRuns: string[] }>(a.url, '/api/health')).activeRuns)
      .toEqual([]);
    const late = await post(a.url, '/api/runs/gone/events', { events: completedRequest('gone', 0) });
    expect(late.status).toBe(409);
    expect(late.json.message).toMatch(/marked abandoned/);
    const run = await getJson<{ status: string; interruptCause: string }>(a.url, '/api/runs/gone');
    expect(run).toMatchObject({ status: 'interrupted', interruptCause: 'dashboard' });
    expect((await fetch(`${b.url}/api/runs/gone`, { method: 'DELETE' })).status).toBe(200);
  });
});
