/**
 * Prometheus agrees with the board: a real Prometheus scrapes a
 * dashboard holding the story (test/helpers/boardStory.ts), and the README's
 * Grafana queries, asked of its HTTP API, answer what /api/stalls says — the
 * hang rate per job, runs per fingerprint (the phase-only one too), the nodes
 * a fingerprint occurred on.
 */
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import type { StallsReply } from '#shared/stalls/stallsApi.ts';
import { recordStory } from '#test/helpers/boardStory.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { startPrometheus, type Prometheus } from '#test/helpers/prometheus.ts';
import { waitFor } from '#test/helpers/waitFor.ts';

/** The README's panels (README.md, "A Prometheus job and Grafana panels"). */
const HANG_RATE =
  'sum by (pipeline, step) (stallscope_job_runs{outcome="stalled"}) / sum by (pipeline, step) (stallscope_job_runs)';
const RUNS_PER_FINGERPRINT = 'sum by (fingerprint) (stallscope_stall_occurrences)';
const NODES_PER_FINGERPRINT = 'count by (fingerprint) (stallscope_stall_occurrences > 0)';

let prom: Prometheus | undefined;
afterEach(async () => {
  await prom?.stop();
  prom = undefined;
});
let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

const stores: { name: string; options: () => Promise<{ dataDir: null; database?: string }> }[] = [
  { name: 'SQLite', options: async () => ({ dataDir: null }) },
  { name: 'PostgreSQL', options: async () => ({ dataDir: null, database: await cluster!.freshDatabase() }) },
];

describe.each(stores)('a real Prometheus scraping /metrics ($name)', ({ options }) => {
  it('answers the README queries with the board’s numbers', { timeout: 60_000 }, async ({ serveApp, tempDir }) => {
    const { app, url } = await serveApp(await options());
    await recordStory(app);
    const board = (await app.inject({ url: '/api/stalls?last=500' })).json() as StallsReply;
    prom = await startPrometheus(tempDir, new URL(url).host);
    await waitFor(async () => (await prom!.query('stallscope_job_runs')).length > 0, 20_000, 200);

    // The hang rate per job: the board's, for each CI job and for the local runs (no empty label: `none`).
    const rates = await prom.query(HANG_RATE);
    const boardRates = new Map<string, number>();
    for (const g of board.groups)
      boardRates.set(`${g.pipeline ?? 'none'}/${g.step ?? 'none'}`, g.jobs[0].total.hangRate);
    expect(Object.fromEntries(rates.map((s) => [`${s.metric.pipeline}/${s.metric.step}`, s.value]))).toEqual(
      Object.fromEntries(boardRates),
    );
    expect(boardRates).toEqual(
      new Map([
        ['vllm-omni/minicpmo-accuracy', 5 / 8],
        ['vllm-omni/qwen-accuracy', 1 / 2],
        ['none/none', 2 / 3],
      ]),
    );

    // Runs per fingerprint: the board's occurrences over its scopes, the phase-only fingerprint included.
    const perFingerprint = new Map<string, number>();
    const nodes = new Map<string, Set<string>>();
    for (const g of board.groups) {
      perFingerprint.set(g.fingerprint, (perFingerprint.get(g.fingerprint) ?? 0) + g.occurrences);
      const set = nodes.get(g.fingerprint) ?? new Set();
      for (const o of g.evidence) set.add(o.node ?? 'none');
      nodes.set(g.fingerprint, set);
    }
    const occ = await prom.query(RUNS_PER_FINGERPRINT);
    expect(Object.fromEntries(occ.map((s) => [s.metric.fingerprint, s.value]))).toEqual(
      Object.fromEntries(perFingerprint),
    );
    const phaseOnly = board.groups.find((g) => g.frames.length === 0)!;
    expect(phaseOnly).toMatchObject({ step: 'qwen-accuracy', occurrences: 1 });
    expect(occ.map((s) => s.metric.fingerprint)).toContain(phaseOnly.fingerprint);

    const nodeCounts = await prom.query(NODES_PER_FINGERPRINT);
    expect(Object.fromEntries(nodeCounts.map((s) => [s.metric.fingerprint, s.value]))).toEqual(
      Object.fromEntries([...nodes].map(([fp, set]) => [fp, set.size])),
    );
    // No series of any stallscope family carries an empty label.
    const scrape = await app.inject({ url: '/metrics' });
    expect(scrape.body).not.toMatch(/=""/);
  });
});
