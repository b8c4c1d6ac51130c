/**
 * A Prometheus counter never decreases (rate() reads a drop as a reset): deleting runs, which takes their events
 * with them, leaves every family typed `counter` where it was or higher. The events the database holds are a gauge,
 * `stallscope_events_stored`, that says so by its name and type (`stallscope_events_total`, a counter, fell).
 * The metrics read the app's real store at every scrape (readEveryMs 0), so the second scrape sees the deletion.
 */
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { fleetAppOptions, seedRun } from '#test/helpers/fleetStore.ts';
import { FleetMetrics } from '#server/dashboard/metrics/fleetMetrics.ts';

/** The samples of the families typed `counter`, by `name{labels}`; the stored events; the families' types. */
function parse(text: string) {
  const types = new Map<string, string>();
  const counters = new Map<string, number>();
  for (const line of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) types.set(t[1], t[2]);
    const m = /^([a-zA-Z_:][\w:]*)(\{.*\})? (\S+)$/.exec(line);
    if (m && types.get(m[1].replace(/_(bucket|sum|count)$/, '')) === 'counter')
      counters.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  const stored = Number(/^stallscope_events_stored (\S+)$/m.exec(text)?.[1]);
  return { types, counters, stored };
}

describe('/metrics after runs are deleted', () => {
  it('no counter decreases; the stored events are a gauge that falls', async ({ newApp }) => {
    const app = await newApp(fleetAppOptions());
    const metrics = new FleetMetrics({
      queries: app.store.metrics,
      writeQueue: () => ({ events: 0, sinceMs: 0 }),
      failedWrites: () => 0,
      retention: () => ({ failedSweeps: 0, rowsPruned: 0 }),
      unjoinedTelemetry: () => 0,
      readEveryMs: 0,
    });
    await seedRun(app, 'a', 1_000_000, { metadata: { ci_node: 'n1' } });
    await seedRun(app, 'b', 2_000_000, { metadata: { ci_node: 'n2' } });
    const before = parse(await metrics.render());
    expect(before.types.get('stallscope_events_stored')).toBe('gauge');
    expect(before.stored).toBeGreaterThan(0);
    expect(before.counters.size).toBeGreaterThan(0);

    expect((await app.inject({ method: 'DELETE', url: '/api/runs/a' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/api/runs/b' })).statusCode).toBe(200);
    const after = parse(await metrics.render());
    for (const [k, v] of before.counters) expect(after.counters.get(k) ?? 0, k).toBeGreaterThanOrEqual(v);
    expect(after.stored).toBe(0);
  });
});
