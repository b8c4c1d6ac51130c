/**
 * /metrics reads the database at most every READ_EVERY_MS and waits for a read it started at most
 * WAIT_FOR_READ_MS (docs/design.md#metrics): a scrape answers quickly whatever the database's counts cost, with the
 * read's age as a gauge. An injected clock and database reads that answer when the test says.
 */
import { describe, expect, it } from 'vitest';
import { FleetMetrics } from '#server/dashboard/metrics/fleetMetrics.ts';
import { readEach, type MetricsQueries } from '#server/dashboard/store/common/metricsQueries.ts';

/** Database reads that each wait for `release()`; `runs` is what the next read finds. */
function slowQueries() {
  const state = { reads: 0, runs: 1, gates: [] as (() => void)[] };
  const gated = <T>(value: () => T) => new Promise<T>((resolve) => state.gates.push(() => resolve(value())));
  const queries: MetricsQueries = {
    runsByVerdictAndPipeline: () => {
      state.reads++;
      const n = state.runs;
      return gated(() => [{ verdict: 'passed', pipeline: 'p', runs: n }]);
    },
    jobRunsByOutcome: () => gated(() => []),
    runsByStatusAndSource: () => gated(() => []),
    stallRunsByFingerprintAndNode: () => gated(() => []),
    eventsNumbered: () => gated(() => 0),
    retentionCounts: () => gated(() => ({ pinned: 0, pruned: 0 })),
    readAll: () => readEach(queries),
  };
  const release = () => {
    const gs = state.gates.splice(0);
    for (const g of gs) g();
  };
  return { state, queries, release };
}

const runsLine = (text: string) => /^stallscope_runs\{verdict="passed",pipeline="p"\} (\d+)$/m.exec(text)?.[1];
const ageLine = (text: string) => Number(/^stallscope_metrics_read_age_seconds (\S+)$/m.exec(text)?.[1]);

describe('/metrics database reads', () => {
  it('reads at most every 10 s, answers the last read while a slow one is under way, and says how old it is', async () => {
    const db = slowQueries();
    let now = 1_000_000;
    const m = new FleetMetrics({
      queries: db.queries,
      writeQueue: () => ({ events: 0, sinceMs: 0 }),
      failedWrites: () => 0,
      retention: () => ({ failedSweeps: 0, rowsPruned: 0 }),
      unjoinedTelemetry: () => 0,
      now: () => now,
      readEveryMs: 10_000,
      waitForReadMs: 20,
    });
    // The first scrape waits for the first read, however long it takes.
    const first = m.render();
    await new Promise((r) => setTimeout(r, 50));
    db.release();
    expect(runsLine(await first)).toBe('1');
    expect(db.state.reads).toBe(1);
    // Within 10 s: no read at all.
    db.state.runs = 2;
    now += 9_000;
    const cached = await m.render();
    expect(db.state.reads).toBe(1);
    expect(runsLine(cached)).toBe('1');
    expect(ageLine(cached)).toBe(9);
    // Older: a read starts; it is slow, so the scrape answers the last read after waiting 20 ms, not the read's time.
    now += 2_000;
    const t0 = performance.now();
    const stale = await m.render();
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(db.state.reads).toBe(2);
    expect(runsLine(stale)).toBe('1');
    expect(ageLine(stale)).toBe(11);
    // A scrape while that read is under way starts none; once it ends, its counts are served, age 0.
    await m.render();
    expect(db.state.reads).toBe(2);
    db.release();
    await new Promise((r) => setTimeout(r, 0));
    const fresh = await m.render();
    expect(runsLine(fresh)).toBe('2');
    expect(ageLine(fresh)).toBe(0);
    expect(db.state.reads).toBe(2);
  });
});
