/**
 * A dashboard run's result is stored in parts built straight from the
 * engine's request table: joined, they are exactly the JSON of the result
 * with vLLM's per-request arrays spliced in (what a whole write stored
 * before), and no part is much larger than asked.
 */
import { describe, expect, it } from 'vitest';
import { newRecord } from '#server/engine/records/record.ts';
import { RequestTable } from '#server/engine/records/requestTable.ts';
import { withDetailedArrays } from '#server/dashboard/runs/detailedResult.ts';
import { resultTextParts, writeResultParts } from '#server/dashboard/runs/resultInParts.ts';
import { buildResultJson } from '#shared/vllmResult/resultJson.ts';
import { calculateMetrics } from '#shared/metrics/index.ts';
import { emptyCounts } from '#shared/requests/outcomes.ts';

function table(n: number): RequestTable {
  const t = new RequestTable(n, () => 9);
  for (let i = 0; i < n - 3; i++) {
    const r = newRecord(20 + i, 100 + i / 3);
    r.success = i % 5 !== 0;
    r.ttft = 0.01 * i;
    r.itl = i % 2 ? [0.001 * i, NaN, -0] : [];
    r.generatedText = i % 3 ? `"quoted" ✓ \ud800 ${i}` : '';
    r.error = r.success ? '' : 'Service Unavailable';
    r.latency = 0.5 + i;
    r.outputTokens = i % 4;
    t.write(i, r, r.success ? 'completed' : 'failed', null, null);
  }
  t.endUnsent(n - 3, n, 'not dispatched: interrupted', 'interrupt');
  return t;
}

function result(t: RequestTable): Record<string, unknown> {
  return buildResultJson({
    date: '20250101-000000',
    backend: 'openai-chat-omni',
    label: null,
    modelId: 'm',
    numPrompts: t.length,
    requestRate: Infinity,
    burstiness: 1,
    maxConcurrency: 4,
    metrics: calculateMetrics(t, { durationS: 3, percentileMetrics: ['ttft', 'itl'], metricPercentiles: [99] }),
    detailed: false,
    records: t,
    statuses: t.statuses,
    counts: emptyCounts(t.length),
    failFast: { enabled: false, tripped: false, cause: null },
    verdict: 'passed',
    verdictReasons: [],
    run: { connectionMode: 'per_request', interruptCause: null, cleanupForcedSockets: 0 },
  });
}

describe('a dashboard run result in parts', () => {
  it('joined, the parts are the whole result with its per-request arrays, byte for byte', () => {
    const t = table(200);
    const r = result(t);
    const whole = JSON.stringify(withDetailedArrays(r, [...t]));
    const parts = [...resultTextParts(r, t, 500)];
    expect(parts.join('')).toBe(whole);
    expect(parts.length).toBeGreaterThan(whole.length / 1000);
    // A part ends once it reached the size asked, after the token that crossed it.
    for (const p of parts) expect(p.length).toBeLessThan(500 + 200);
    expect(JSON.parse(parts.join('')).ttfts).toHaveLength(200);
  });

  it('waits for each write (a socket round trip on PostgreSQL) before the next and before counting', async () => {
    const order: string[] = [];
    const n = await writeResultParts(
      ['a', 'b'],
      async (p) => {
        order.push(`start ${p}`);
        await new Promise((r) => setTimeout(r, 5));
        order.push(`end ${p}`);
      },
      () => false,
    );
    expect(order).toEqual(['start 0', 'end 0', 'start 1', 'end 1']);
    expect(n).toBe(2);
  });

  it('writes one part per turn and stops when told', async () => {
    const written: [number, string][] = [];
    expect(
      await writeResultParts(
        ['a', 'b', 'c'],
        (p, s) => void written.push([p, s]),
        () => false,
      ),
    ).toBe(3);
    expect(written).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
    let calls = 0;
    expect(
      await writeResultParts(
        ['a', 'b'],
        () => void calls++,
        () => calls > 0,
      ),
    ).toBeNull();
    expect(calls).toBe(1);
  });
});
