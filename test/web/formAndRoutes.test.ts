import { describe, expect, it } from 'vitest';
import { runSpecIssues } from '#shared/config/runSpec.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { formatKeyValues, getPath, parseKeyValues, parseNumberInput, setPath } from '#web/components/form/paths.ts';
import { describeAt } from '#web/components/timeline/tooltip.ts';
import { href, parseRoute, type Route } from '#web/state/router.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { failFastRun, numbered } from '#test/helpers/failFastRun.ts';

describe('form paths', () => {
  it('reads and writes nested values immutably, deleting optional ones', () => {
    const spec = structuredClone(CODE2WAV_HANG.spec);
    const next = setPath(spec, 'target.faults.0.after', 5);
    expect(getPath(next, 'target.faults.0.after')).toBe(5);
    expect(getPath(spec, 'target.faults.0.after')).toBe(3);
    expect(Array.isArray(getPath(next, 'target.faults'))).toBe(true);
    expect('label' in setPath(spec, 'label', undefined)).toBe(false);
  });

  it('keeps text that is not a number so the schema names the field', () => {
    expect(parseNumberInput(' 12 ', undefined)).toBe(12);
    expect(parseNumberInput('', null)).toBeNull();
    expect(parseNumberInput('', undefined)).toBeUndefined();
    const bad = setPath(structuredClone(CODE2WAV_HANG.spec), 'numPrompts', parseNumberInput('ten', undefined));
    expect(runSpecIssues(bad).map((i) => i.field)).toContain('numPrompts');
  });

  it('accepts the percentiles the CLI accepts: (0, 100]', () => {
    const at = (p: number) =>
      runSpecIssues({ ...structuredClone(CODE2WAV_HANG.spec), metricPercentiles: [p] }).map(
        (i) => i.field.split('.')[0],
      );
    expect(at(100)).not.toContain('metricPercentiles');
    expect(at(99.9)).not.toContain('metricPercentiles');
    expect(at(0)).toContain('metricPercentiles');
    expect(at(100.5)).toContain('metricPercentiles');
  });

  it('parses metadata lines', () => {
    expect(parseKeyValues('build=12\n node = mi300 \n\nbad')).toEqual({
      record: { build: '12', node: 'mi300' },
      bad: ['bad'],
    });
    expect(formatKeyValues({ a: '1', b: '2' })).toBe('a=1\nb=2');
  });
});

describe('routes', () => {
  it('round-trips every page through the hash', () => {
    const routes: Route[] = [
      { page: 'runs' },
      { page: 'new' },
      { page: 'run', id: 'a b/c' },
      { page: 'run', id: 'x', request: 7 },
      { page: 'compare', ids: ['a', 'b,c'] },
    ];
    for (const r of routes) {
      expect(parseRoute(href(r))).toEqual(r);
    }
    expect(parseRoute('')).toEqual({ page: 'runs' });
    expect(parseRoute('#/nope')).toEqual({ page: 'notFound', path: '/nope' });
  });
});

describe('timeline tooltip', () => {
  const m = applyEvents(emptyRun('run1'), numbered(failFastRun()));
  const view = { t0: 0, t1: 1000, width: 1000 };
  it('names the life segment or the Code2Wav phase under the pointer', () => {
    const r1 = m.requests[1];
    const ops = m.opsByRequest['r-1'].map((k) => m.ops[k]);
    expect(describeAt(r1, ops, view, 1001, 500, false)?.[1]).toBe('waiting for the first token');
    const phase = describeAt(r1, ops, view, 1001, 500, true)!;
    expect(phase[1]).toBe('Code2Wav hift (stalled), op 0:2');
    expect(phase).toContain('mel_frames: 50');
    expect(describeAt(m.requests[0], [], view, 1001, 60, false)).toEqual([
      '#0 r-0 — completed',
      'text streaming',
      '50 ms → 75 ms (25 ms)',
    ]);
  });
});
