/**
 * GET /metrics (docs/design.md#metrics): the exposition text parsed and its
 * values checked against a seeded database, the same after a restart, two
 * apps in one process each with its own registry, and the token rule.
 */
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { test as it } from '#test/helpers/fixtures.ts';
import { fleetAppOptions, seedRun } from '#test/helpers/fleetStore.ts';
import { reportFingerprint } from '#shared/stalls/stallEvidence.ts';
import { runStarted, stallReport } from '#test/helpers/sampleEvents.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format 0.0.4: `name{label="value",...} number` per line; comments skipped. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { samples, types };
}

async function scrape(app: FastifyInstance, headers: Record<string, string> = {}) {
  const r = await app.inject({ url: '/metrics', headers });
  expect(r.statusCode).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(r.body);
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

/** Four finished runs with a stall each (three of pipeline nightly: two failed_closed, one marked passed) and one running. */
async function seed(app: FastifyInstance): Promise<void> {
  await seedRun(app, 'a', 1_000_000, { metadata: { ci_pipeline: 'nightly', ci_node: 'n1' } });
  await seedRun(app, 'b', 2_000_000, { metadata: { ci_pipeline: 'nightly', ci_node: 'n2' } });
  await seedRun(app, 'c', 3_000_000, { metadata: { ci_pipeline: 'nightly', ci_node: 'n1' } });
  await app.store.runWrites.update('c', { verdict: 'passed' });
  await seedRun(app, 'd', 4_000_000, { metadata: { ci_node: 'n1' } });
  await seedRun(app, 'live', 5_000_000, { events: [runStarted('live', 3, 5_000_000)], finish: false });
}

describe('GET /metrics', () => {
  it('exports the database as gauges named stallscope_*, right after a restart', async ({ newApp, tempDir }) => {
    const app = await newApp(fleetAppOptions({ dataDir: tempDir }));
    await seed(app);
    // Every seeded finished run holds the same hang (one stall report, one fingerprint): a, c, d on n1, b on n2.
    const fp = reportFingerprint(stallReport('x', 5)).fingerprint;
    const lastSeqs = (await Promise.all(['a', 'b', 'c', 'd', 'live'].map((id) => app.store.runReads.get(id)))).map(
      (r) => r!.lastSeq,
    );
    const expectations = (samples: Sample[]) => {
      expect(samples.length).toBeGreaterThan(10);
      for (const s of samples) expect(s.name).toMatch(/^stallscope_/);
      const runs = (verdict: string, pipeline: string) => value(samples, 'stallscope_runs', { verdict, pipeline });
      expect(runs('failed_closed', 'nightly')[0].value).toBe(2);
      expect(runs('passed', 'nightly')[0].value).toBe(1);
      expect(runs('failed_closed', 'none')[0].value).toBe(1);
      expect(runs('none', 'none')[0].value).toBe(1); // the live run
      expect(value(samples, 'stallscope_runs_in_progress')[0].value).toBe(1);
      expect(value(samples, 'stallscope_runs_by_status', { status: 'finished', source: 'dashboard' })[0].value).toBe(4);
      const stalls = (node: string) => value(samples, 'stallscope_stall_occurrences', { fingerprint: fp, node });
      expect(stalls('n1')[0]).toMatchObject({ value: 3, labels: { phase: 'hift' } });
      expect(stalls('n2')[0].value).toBe(1);
      expect(value(samples, 'stallscope_stall_occurrences')).toHaveLength(2);
      expect(value(samples, 'stallscope_events_stored')[0].value).toBe(lastSeqs.reduce((x, y) => x + y, 0));
      expect(value(samples, 'stallscope_database_up')[0].value).toBe(1);
    };
    const first = await scrape(app);
    expectations(first.samples);
    expect(first.types.get('stallscope_events_stored')).toBe('gauge');
    expect(first.types.get('stallscope_runs')).toBe('gauge');
    expect(value(first.samples, 'stallscope_ingest_queued_events')[0].value).toBe(0);
    expect(value(first.samples, 'stallscope_ingest_lag_seconds')[0].value).toBe(0);

    await app.close();
    const restarted = await newApp(fleetAppOptions({ dataDir: tempDir }));
    const after = await scrape(restarted);
    // The live run was interrupted by the restart: it is no longer in progress, and has a verdict now.
    expect(value(after.samples, 'stallscope_runs_in_progress')[0].value).toBe(0);
    expect(value(after.samples, 'stallscope_runs', { verdict: 'interrupted', pipeline: 'none' })[0].value).toBe(1);
    expect(value(after.samples, 'stallscope_runs', { verdict: 'failed_closed', pipeline: 'nightly' })[0].value).toBe(2);
    expect(value(after.samples, 'stallscope_stall_occurrences', { fingerprint: fp, node: 'n1' })[0].value).toBe(3);
  });

  it('counts reporting requests in this process; two apps keep separate registries', async ({ newApp }) => {
    const one = await newApp(fleetAppOptions());
    const two = await newApp(fleetAppOptions());
    await one.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'r1' } });
    await one.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'r1' } }); // 409
    await one.inject({ method: 'POST', url: '/api/runs/r1/events', payload: { events: [runStarted('r1', 1)] } });
    const s1 = (await scrape(one)).samples;
    const s2 = (await scrape(two)).samples;
    const req = (s: Sample[], route: string, code: string) =>
      value(s, 'stallscope_report_requests_total', { route, code })[0]?.value;
    expect(req(s1, '/api/runs/external', '201')).toBe(1);
    expect(req(s1, '/api/runs/external', '409')).toBe(1);
    expect(req(s1, '/api/runs/:id/events', '200')).toBe(1);
    expect(
      value(s1, 'stallscope_report_request_duration_seconds_count', { route: '/api/runs/:id/events' })[0].value,
    ).toBe(1);
    expect(value(s1, 'stallscope_runs_in_progress')[0].value).toBe(1);
    expect(req(s2, '/api/runs/external', '201')).toBeUndefined();
    expect(value(s2, 'stallscope_runs_in_progress')[0].value).toBe(0);
    expect(value(s2, 'stallscope_store_errors_total', { kind: 'write' })[0].value).toBe(0);
  });

  it('off loopback, needs a token: none is 401, the admin or a view token reads it', async ({ newApp }) => {
    const app = await newApp(fleetAppOptions({ host: '0.0.0.0', token: 'adm' }));
    const none = await app.inject({ url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('API_UNAUTHORIZED');
    const created = await app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { authorization: 'Bearer adm' },
      payload: { scope: 'view', name: 'prometheus' },
    });
    await scrape(app, { authorization: `Bearer ${created.json().token as string}` });
    await scrape(app, { authorization: 'Bearer adm' });
  });
});
