/** The pure parts of the form and the finishing touches: routes with the filters and the request, the import notice, exports, round axes. */
import { describe, expect, it } from 'vitest';
import { runSpecIssues } from '#shared/config/runSpec.ts';
import { labelled } from '#web/components/form/paths.ts';
import { CUSTOM } from '#web/state/customPreset.ts';
import { importMessage } from '#web/state/importMessage.ts';
import { href, parseRoute, type Route } from '#web/state/router.ts';
import { exportChoices, perRequestData, timelineGap } from '#web/state/runData.ts';
import { emptyRow } from '#shared/runView/runModel.ts';
import { histogram, niceStep, outcomeSeries, timeAxis } from '#web/state/selectors.ts';
import { humanVerdict } from '#web/state/verdictWords.ts';

describe('routes', () => {
  it('give a request exactly #/runs/ID?req=N, and still read the old ?request=N', () => {
    expect(href({ page: 'run', id: 'r1', request: 5 })).toBe('#/runs/r1?req=5');
    expect(parseRoute('#/runs/r1?req=5')).toEqual({ page: 'run', id: 'r1', request: 5 });
    expect(parseRoute('#/runs/r1?request=5')).toEqual({ page: 'run', id: 'r1', request: 5 });
    expect(parseRoute('#/runs/r1?req=x')).toEqual({ page: 'run', id: 'r1' });
  });

  it('keep the runs filters and the new-run preset in the URL', () => {
    const routes: Route[] = [
      { page: 'runs', verdict: 'failed_closed', q: 'clean 8', meta: 'build=1 node=a&b', offset: 25 },
      { page: 'runs', q: '#1' },
      { page: 'new', preset: 'code2wav-hang' },
      { page: 'new', preset: 'custom' },
    ];
    for (const r of routes) expect(parseRoute(href(r))).toEqual(r);
    expect(href({ page: 'runs', offset: 0 })).toBe('#/');
    expect(parseRoute('#/?verdict=failed&offset=0')).toEqual({ page: 'runs', verdict: 'failed' });
  });
});

describe('import notice', () => {
  const run = (i: number, missing: string[]) => ({ id: `import-x-${i}`, label: `f.json #${i}`, missing });
  it('says what sixteen runs lack once', () => {
    const msg = importMessage(Array.from({ length: 16 }, (_, i) => run(i + 1, ['audio', 'failFast', 'verdict'])));
    expect(msg).toBe(
      'Imported 16 runs: f.json #1 … f.json #16. All without audio metrics, fail-fast counts. Verdicts derived from the counts (the file gives none).',
    );
    expect(msg.match(/without/g)).toHaveLength(1);
  });
  // The list shows a badge for each import (derived when the file has no verdict): never "without a verdict" beside it.
  it('says a verdict missing from the file was derived from the counts, not that the run has none', () => {
    expect(importMessage([run(1, ['verdict'])])).toBe(
      'Imported 1 run: f.json #1. Verdict derived from the counts (the file gives none).',
    );
    expect(importMessage([run(1, ['verdict']), run(2, []), run(3, ['detailed', 'verdict'])])).toBe(
      'Imported 3 runs: f.json #1, f.json #2, f.json #3. f.json #3: without per-request data. f.json #1, f.json #3: verdict derived from the counts (the file gives none).',
    );
  });
  it('groups runs that lack different parts, and says nothing when nothing is missing', () => {
    expect(importMessage([run(1, ['verdict']), run(2, ['audio', 'verdict']), run(3, ['verdict'])])).toBe(
      'Imported 3 runs: f.json #1, f.json #2, f.json #3. f.json #2: without audio metrics. Verdicts derived from the counts (the file gives none).',
    );
    expect(importMessage([run(1, [])])).toBe('Imported 1 run: f.json #1.');
    expect(importMessage([run(1, ['detailed'])])).toBe('Imported 1 run: f.json #1. Without per-request data.');
  });
});

describe('exports and timeline gaps', () => {
  const timed = { ...emptyRow(0), sentT: 5 };
  it('disables the trace and the CSV, with a reason, when there is nothing per request', () => {
    expect(perRequestData([])).toBe('none');
    expect(perRequestData([emptyRow(0)])).toBe('untimed');
    expect(perRequestData([emptyRow(0), timed])).toBe('timed');
    const off = (d: Parameters<typeof exportChoices>[0]) =>
      exportChoices(d)
        .filter((c) => c.disabledReason)
        .map((c) => c.format);
    expect(off('none')).toEqual(['trace', 'csv']);
    expect(off('untimed')).toEqual(['trace']);
    expect(off('timed')).toEqual([]);
    expect(off(null)).toEqual([]);
    expect(exportChoices('none')[2].disabledReason).toMatch(/only its header/);
  });
  it('names the missing start times of a detailed import', () => {
    expect(timelineGap('untimed', 'import')).toMatch(/no per-request start times \(vLLM writes them as start_times\)/);
    expect(timelineGap('timed', 'import')).toBeNull();
  });
});

describe('round axes', () => {
  it('bins a histogram on round edges', () => {
    const h = histogram([5.83, 7.96, 12.22, 31.4, 44.9], 20);
    const w = h[1].from - h[0].from;
    expect(w).toBe(2);
    for (const b of h) expect(b.from % 2).toBe(0);
    expect(h[0].label).toBe('4');
    expect(h.reduce((a, b) => a + b.count, 0)).toBe(5);
    expect(histogram([0.1, 0.2, 0.3, 0.7]).map((b) => b.from)).toContain(0.3);
    expect(histogram([0.1, 0.2, 0.3, 0.7]).every((b) => String(b.from).length <= 4)).toBe(true);
  });
  it('puts time buckets and ticks at round steps that are bucket ends', () => {
    expect([niceStep(0.13), niceStep(3), niceStep(7), niceStep(20)]).toEqual([0.2, 5, 10, 20]);
    const a = timeAxis(37_000, 60);
    expect(a.stepMs).toBe(1000);
    expect(a.ticksS).toEqual([10, 20, 30]);
    const b = timeAxis(9000, 60);
    expect(b.ticksS).toEqual([2, 4, 6, 8]);
    const pts = outcomeSeries([], b.endMs, b.buckets).map((p) => p.s);
    for (const t of b.ticksS) expect(pts).toContain(t);
    expect(timeAxis(7000, 60).ticksS.every((t) => Number.isInteger(t * 2))).toBe(true);
  });
});

describe('field messages', () => {
  it('continue the label, or follow it after a colon when they are a sentence of their own', () => {
    expect(labelled('Max batch', 'must be at most 64')).toBe('Max batch must be at most 64');
    expect(labelled('Self-timed', 'needs a trace dataset')).toBe('Self-timed needs a trace dataset');
    expect(labelled('Request rate (req/s)', 'with ramp-up the rate comes from the ramp-up')).toBe(
      'Request rate (req/s): with ramp-up the rate comes from the ramp-up',
    );
  });
});

describe('the Custom choice', () => {
  it('is a valid spec that carries no preset label, metadata, faults or watchdog', () => {
    expect(runSpecIssues(CUSTOM.spec)).toEqual([]);
    expect(CUSTOM.spec.label).toBeUndefined();
    expect(CUSTOM.spec.metadata).toEqual({});
    expect(CUSTOM.spec.target).toEqual({ kind: 'embedded', faults: [], watchdogTimeoutS: 0, workers: 1, maxBatch: 4 });
    expect(CUSTOM.spec.failFast).toBe(false);
  });
});

describe('words', () => {
  it('never shows a raw verdict value', () => {
    expect(humanVerdict('failed_closed')).toBe('failed closed');
    expect(humanVerdict('some_new_state')).toBe('some new state');
  });
});
