import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  clampView,
  formatTick,
  hitTest,
  lifeSegments,
  niceTicks,
  panView,
  phaseSegments,
  place,
  timeToX,
  xToTime,
  zoomView,
} from '#web/components/timeline/geometry.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRow, emptyRun } from '#shared/runView/runModel.ts';
import { failFastRun, numbered } from '#test/helpers/failFastRun.ts';

const m = applyEvents(emptyRun('run1'), numbered(failFastRun()));

describe('timeline geometry', () => {
  it('splits a completed request into queued, waiting, text and audio', () => {
    expect(lifeSegments(m.requests[0], 5000).map((s) => [s.kind, s.t0, s.t1])).toEqual([
      ['queued', 0, 1],
      ['waiting', 1, 50],
      ['text', 50, 75],
      ['audio', 75, 100],
    ]);
  });

  it('runs open segments to now, and an unsent request is only queued', () => {
    const r = { ...emptyRow(7), queuedT: 10, sentT: 20 };
    expect(lifeSegments(r, 300).map((s) => [s.kind, s.t0, s.t1])).toEqual([
      ['queued', 10, 20],
      ['waiting', 20, 300],
    ]);
    expect(lifeSegments(m.requests[3], 5000).map((s) => [s.kind, s.t0, s.t1])).toEqual([['queued', 0, 1001]]);
  });

  it('draws Code2Wav phases until the next phase, the op end, or now for a stalled op', () => {
    const ops = m.opsByRequest['r-1'].map((k) => m.ops[k]);
    expect(phaseSegments(ops, 2000).map((s) => [s.phase, s.t0, s.t1, !!s.stalled])).toEqual([
      ['setup', 61, 62, false],
      ['cfm', 62, 70, false],
      ['hift', 111, 2000, true],
    ]);
  });

  it('places segments in pixels, clipped, with a minimum width, and hit-tests them', () => {
    const v = { t0: 0, t1: 100, width: 1000 };
    const placed = place(
      [
        { t0: -50, t1: 10 },
        { t0: 50, t1: 50.01 },
        { t0: 200, t1: 300 },
      ],
      v,
    );
    expect(placed.map((p) => [p.left, p.width])).toEqual([
      [0, 100],
      [500, 1],
    ]);
    expect(hitTest(placed, 501)).toBe(placed[1].item);
    expect(hitTest(placed, 300)).toBeUndefined();
  });

  it('maps time to x and back', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (t) => {
        const v = { t0: 100, t1: 5100, width: 777 };
        expect(xToTime(timeToX(t, v), v)).toBeCloseTo(t, 6);
      }),
    );
  });

  it('zooms around the anchor and stays inside the domain when panning', () => {
    const v = { t0: 0, t1: 1000, width: 500 };
    const z = zoomView(v, 2, 250, 1000);
    expect([z.t0, z.t1]).toEqual([125, 625]);
    expect(timeToX(250, z) / z.width).toBeCloseTo(timeToX(250, v) / v.width);
    expect(panView(z, 10_000, 1000)).toMatchObject({ t0: 500, t1: 1000 });
    expect(panView(z, -10_000, 1000)).toMatchObject({ t0: 0, t1: 500 });
    expect(zoomView(v, 1e9, 10, 1000).t1 - zoomView(v, 1e9, 10, 1000).t0).toBe(5);
    expect(clampView({ t0: -5, t1: 5000, width: 1 }, 1000)).toMatchObject({ t0: 0, t1: 1000 });
  });

  it('makes round ticks and readable labels', () => {
    expect(niceTicks(0, 1000, 5)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(niceTicks(130, 170, 4)).toEqual([130, 140, 150, 160, 170]);
    expect(niceTicks(5, 5)).toEqual([]);
    expect(formatTick(250, 1000)).toBe('250 ms');
    expect(formatTick(2500, 10_000)).toBe('2.5 s');
    expect(formatTick(60_000, 100_000)).toBe('60 s');
  });
});
