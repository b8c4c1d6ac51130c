/**
 * The load benchmark at reduced size: several real `stallscope bench --report-to` processes at once against one
 * dashboard on PostgreSQL; every run's events are stored exactly once (seqs 1..last, request rows and completed
 * count equal to each CLI's own result file).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { reporterFleet, startFastRepro } from '#test/helpers/reporterFleet.ts';

let cluster: PgCluster;
let repro: { url: string; child: ChildProcess };
beforeAll(async () => {
  [cluster, repro] = await Promise.all([startPostgres(), startFastRepro()]);
});
afterAll(() => {
  cluster?.destroy();
  repro?.child.kill('SIGTERM');
});

describe('many reporters, one PostgreSQL dashboard', () => {
  it('stores every event of every run exactly once', async () => {
    const f = await reporterFleet({ dataDir: null, database: await cluster.freshDatabase() }, repro.url, 3, 30);
    expect(f.problems).toEqual([]);
    expect(f.exact).toBe(3);
  }, 120_000);
});
