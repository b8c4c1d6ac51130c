/**
 * /metrics bounded whatever the cardinality (docs/design.md#metrics): any
 * report token can name a pipeline, a node, a stall's phase, so a database
 * with 100,000 distinct 400-character values of each still scrapes in under
 * 1 MB and 200 ms, on SQLite and PostgreSQL, with each family's series
 * summing to the true total (the tail under `other`). And every family of
 * the registry, today's and any added later, is capped: each is made through
 * the capped registry and keeps at most MAX_SERIES + 1 label sets.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { sql, type Kysely } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { test as it } from '#test/helpers/fixtures.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import type { StallscopeDb } from '#server/dashboard/store/common/schema.ts';
import { FleetMetrics } from '#server/dashboard/metrics/fleetMetrics.ts';
import { MAX_LABEL_CHARS, MAX_SERIES, OTHER } from '#server/dashboard/metrics/seriesCap.ts';
import { MAX_GROUPS } from '#server/dashboard/store/common/metricsQueries.ts';

const N = 100_000;
/** Runs of one pipeline, node and stall: the largest groups, which must keep their own series. */
const BIG = 60;
const VERDICTS = ['passed', 'failed_closed', 'failed_open'];
/** A scrape's wall time, generous: on 2 shared cores it measured 0.4–1.5 s (today's code: 7 s and more). */
const SCRAPE_MS = 4000;

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

/** A 400-character value, distinct per i (the probe's pipeline names). */
const long = (kind: string, i: number) => `${kind}-${i}-`.padEnd(400, 'x');

/**
 * N runs, each with its own pipeline, node and stall (fingerprint and phase), plus BIG runs sharing one of each,
 * inserted in SQL (a recursive series, the same text on both databases) so the population costs a second.
 */
async function populate(db: Kysely<StallscopeDb>): Promise<void> {
  const pad = (expr: ReturnType<typeof sql>) => sql`substr(${expr} || ${'-'.padEnd(400, 'x')}, 1, 400)`;
  const runs = sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${sql.lit(N + BIG)})`;
  const big = sql`i > ${sql.lit(N)}`;
  const name = (kind: string) =>
    sql`CASE WHEN ${big} THEN ${`big-${kind}`} ELSE ${pad(sql`${`${kind}-`} || CAST(i AS TEXT)`)} END`;
  await sql`${runs}
    INSERT INTO runs (id, source, status, verdict, created_at_ms, last_seq)
    SELECT 'r' || CAST(i AS TEXT), 'cli', 'finished',
      CASE i % 3 WHEN 0 THEN 'passed' WHEN 1 THEN 'failed_closed' ELSE 'failed_open' END, i, 1 FROM s`.execute(db);
  for (const key of ['ci_pipeline', 'ci_node'])
    await sql`${runs} INSERT INTO run_metadata (run_id, key, value)
      SELECT 'r' || CAST(i AS TEXT), ${key}, ${name(key === 'ci_pipeline' ? 'pipeline' : 'node')} FROM s`.execute(db);
  await sql`${runs} INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, fingerprint)
    SELECT 'r' || CAST(i AS TEXT), 0, 1, 1, ${name('phase')}, '{}', ${name('fingerprint')} FROM s`.execute(db);
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The exposition's sample lines (label values unescaped). */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line.slice(0, 200)}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const sum = (xs: Sample[], name: string) => xs.filter((s) => s.name === name).reduce((a, s) => a + s.value, 0);

const stores: { name: string; options: () => Promise<{ dataDir: null; database?: string }> }[] = [
  { name: 'SQLite', options: async () => ({ dataDir: null }) },
  { name: 'PostgreSQL', options: async () => ({ dataDir: null, database: await cluster!.freshDatabase() }) },
];

describe.each(stores)('/metrics with 100,000 pipelines of 400 characters ($name)', ({ options }) => {
  it('stays under 1 MB, keeps the largest groups, sums the rest under other; every family capped', async ({
    newApp,
  }) => {
    const app: FastifyInstance = await newApp(await options());
    await populate(app.store.kysely);
    await app.inject({ url: '/metrics' }); // the first scrape warms the plans and the page cache
    const t0 = performance.now();
    const r = await app.inject({ url: '/metrics' });
    const ms = performance.now() - t0;
    expect(r.statusCode).toBe(200);
    expect(r.body.length).toBeLessThan(1_000_000); // today's code: 45.6 MB
    // The aim is 200 ms on an idle machine (docs/design.md#metrics); the bound is generous for a shared one.
    expect(ms).toBeLessThan(SCRAPE_MS);

    const xs = samples(r.body);
    // Sums kept: every run counted once in the runs family and in the status family, each stall once.
    expect(sum(xs, 'stallscope_runs')).toBe(N + BIG);
    expect(sum(xs, 'stallscope_runs_by_status')).toBe(N + BIG);
    expect(sum(xs, 'stallscope_stall_occurrences')).toBe(N + BIG);
    // The largest groups keep their own series (the big pipeline's runs, one group per verdict); the tail is one
    // series under other.
    const runs = xs.filter((s) => s.name === 'stallscope_runs');
    for (const v of VERDICTS) {
      expect(runs.find((s) => s.labels.pipeline === 'big-pipeline' && s.labels.verdict === v)?.value).toBe(BIG / 3);
      expect(runs.find((s) => s.labels.pipeline === OTHER && s.labels.verdict === v)?.value).toBeGreaterThan(N / 4);
    }
    const others = runs.filter((s) => s.labels.pipeline === OTHER);
    expect(others.reduce((a, s) => a + s.value, 0)).toBe(N - (MAX_GROUPS - 1));
    expect(new Set(runs.map((s) => s.labels.pipeline)).size).toBe(MAX_GROUPS + 1);
    const stalls = xs.filter((s) => s.name === 'stallscope_stall_occurrences');
    expect(stalls.find((s) => s.labels.fingerprint === 'big-fingerprint')).toMatchObject({
      labels: { phase: 'big-phase', node: 'big-node' },
      value: BIG,
    });
    expect(stalls.find((s) => s.labels.fingerprint === OTHER)?.value).toBe(N - (MAX_GROUPS - 1));
    expect(stalls).toHaveLength(MAX_GROUPS + 1);
    for (const s of xs)
      for (const v of Object.values(s.labels)) expect(Array.from(v).length).toBeLessThanOrEqual(MAX_LABEL_CHARS);

    // Every family of the registry is made through the capped registry and capped, the in-process ones too.
    const metrics = new FleetMetrics({
      queries: app.store.metrics,
      writeQueue: () => ({ events: 0, sinceMs: 0 }),
      failedWrites: () => 0,
      unjoinedTelemetry: () => 0,
      retention: () => ({ failedSweeps: 0, rowsPruned: 0 }),
    });
    // What a peer could make this process count: routes and codes by the thousand.
    for (let i = 0; i < 1000; i++) metrics.observeReport(long('route', i), 200 + (i % 300), 0.01);
    await metrics.render();
    const families = await metrics.families.registry.getMetricsAsJSON();
    expect(families.length).toBeGreaterThan(10);
    for (const f of families) {
      expect(metrics.families.families(), `${f.name} is made through the capped registry`).toContain(f.name);
      // A histogram's buckets share their label set but for `le`.
      const sets = new Set(f.values.map((v) => JSON.stringify(Object.entries(v.labels).filter(([k]) => k !== 'le'))));
      expect(sets.size, f.name).toBeLessThanOrEqual(MAX_SERIES + 1);
      for (const v of f.values)
        for (const l of Object.values(v.labels))
          expect(Array.from(String(l)).length).toBeLessThanOrEqual(MAX_LABEL_CHARS);
    }
  }, 120_000);
});
