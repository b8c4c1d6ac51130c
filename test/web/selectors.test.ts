import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configDiff, delta, metricSections } from '#web/state/metricsTable.ts';
import {
  histogram,
  latenciesMs,
  outcomePanels,
  outcomeSeries,
  stallsByPhase,
  type SeriesPoint,
} from '#web/state/selectors.ts';
import { stallAgeS } from '#shared/runView/stalls.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { failFastRun, numbered, T0 } from '#test/helpers/failFastRun.ts';

const m = applyEvents(emptyRun('run1'), numbered(failFastRun()));
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/vllm-results/${name}`, import.meta.url), 'utf8'));

describe('selectors', () => {
  it('counts active requests and outcomes per bucket', () => {
    const pts = outcomeSeries(m.requests, 1100, 11); // 100 ms buckets
    expect(pts).toHaveLength(11);
    expect(pts[0]).toMatchObject({ s: 0.1, inFlight: 2, completed: 0 }); // r0 ends at exactly 100 → bucket 1
    // r0 ends at 100 and r2 is sent at 101: they follow each other, so the exact count is 2, not 3.
    expect(pts[1]).toMatchObject({ inFlight: 2, completed: 1 });
    expect(pts[10]).toMatchObject({ inFlight: 2, timedOut: 1, cancelled: 2 });
    expect(pts.reduce((a, p) => a + p.completed + p.timedOut + p.cancelled, 0)).toBe(4);
  });

  it('makes histograms without inventing values', () => {
    expect(histogram([])).toEqual([]);
    expect(histogram([5, 5])).toEqual([{ from: 5, to: 5, count: 2, label: '5' }]);
    const h = histogram([0, 1, 2, 3, 10], 5);
    expect(h.map((b) => b.count)).toEqual([2, 2, 0, 0, 1]);
    expect(latenciesMs(m.requests, 'ttftS')).toEqual([100]);
  });

  it('ages a stall while live, freezes it at the run end', () => {
    const s = m.stalls[0];
    const live = { startedAtMs: T0, finishedT: null };
    expect(stallAgeS(s, live, T0 + 400)).toBeCloseTo(0.289);
    expect(stallAgeS(s, live, T0 + 2400)).toBeCloseTo(2.289);
    expect(stallAgeS(s, m, T0 + 99_999)).toBeCloseTo(0.289 + 0.61);
    expect(stallsByPhase(['hift', 'hift', 'cfm'])).toEqual({ hift: 2, cfm: 1 });
  });

  it('lays out a real vLLM-Omni result like vllm bench serve prints it', () => {
    const secs = metricSections([fixture('omni-chat-compact-randommm.json')]);
    expect(secs.map((s) => s.title)).toEqual([
      'Serving Benchmark Result',
      'Time to First Token',
      'Time per Output Token (excl. 1st token)',
      'Inter-token Latency',
      'End-to-end Latency',
      'Time to First Packet',
      'Real Time Factor',
      'Audio Duration',
    ]);
    expect(secs[1].rows.map((r) => r.label)).toEqual(['Mean TTFT (ms)', 'Median TTFT (ms)', 'P99 TTFT (ms)']);
    expect(secs[6].rows[0].key).toBe('mean_audio_rtf');
    // A TTS result has no tpot/itl keys: no such sections.
    const tts = metricSections([fixture('omni-tts-seedtts-failed31.json')]).map((s) => s.title);
    expect(tts).not.toContain('Inter-token Latency');
    expect(tts).toContain('Time to First Token');
    // request_goodput is shown when a run had --goodput (vLLM writes null otherwise: no row).
    const head = (r: Record<string, unknown>) => metricSections([r as never])[0].rows.map((x) => x.key);
    expect(head(fixture('omni-chat-compact-randommm.json'))).not.toContain('request_goodput');
    expect(head({ ...fixture('omni-chat-compact-randommm.json'), request_goodput: 1.5 })).toContain('request_goodput');
  });

  it('computes deltas and highlights differing config keys', () => {
    expect(delta(100, 150)).toEqual({ abs: 50, rel: 0.5 });
    expect(delta(0, 1)).toEqual({ abs: 1, rel: null });
    expect(delta(null, 1)).toBeNull();
    const d = configDiff([
      { a: 1, t: { x: 'y', f: [1] } },
      { a: 1, t: { x: 'z', f: [1] }, extra: true },
    ]);
    expect(d).toEqual([
      { key: 'a', values: ['1', '1'], differs: false },
      { key: 'extra', values: [undefined, 'true'], differs: true },
      { key: 't.f', values: ['[1]', '[1]'], differs: false },
      { key: 't.x', values: ['y', 'z'], differs: true },
    ]);
  });
});

describe('the Completions chart', () => {
  const pt = (s: number, over: Partial<SeriesPoint>): SeriesPoint => ({
    s,
    inFlight: 0,
    completed: 0,
    failed: 0,
    timedOut: 0,
    cancelled: 0,
    ...over,
  });
  // Caught: one stacked linear scale, where 5 timeouts beside 1,083 cancellations are a few pixels.
  it('gives each outcome the run has its own scale, the empty ones left out', () => {
    const series = [pt(1, { timedOut: 1 }), pt(2, { timedOut: 4, cancelled: 1083 }), pt(3, { completed: 2 })];
    expect(outcomePanels(series)).toEqual([
      { key: 'completed', label: 'completed', total: 2, max: 2 },
      { key: 'timedOut', label: 'timed out', total: 5, max: 4 },
      { key: 'cancelled', label: 'cancelled', total: 1083, max: 1083 },
    ]);
    expect(outcomePanels([pt(1, {})])).toEqual([]);
  });
});
