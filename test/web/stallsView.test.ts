/**
 * What the Stalls page and Compare derive, pure: the way from a board
 * occurrence to its evidence, a job's strip by node, the group's run to
 * compare, the picker's search as a filter, a compared run's lanes, and the
 * routes that carry them.
 */
import { dateTime } from '#shared/format.ts';
import { describe, expect, it } from 'vitest';
import {
  compareIds,
  evidenceName,
  evidenceRoute,
  groupsShown,
  moreGroups,
  moreOfSameBoard,
  shownGroups,
  stallsFilter,
  stripByNode,
} from '#web/state/stallsView.ts';
import { pickerFilter, pickerLine } from '#web/state/comparePicker.ts';
import { laneChart } from '#web/state/compareTimeline.ts';
import { href, parseRoute, type Route } from '#web/state/router.ts';
import type { JobBoard, StallGroupReply } from '#shared/stalls/stallsApi.ts';
import type { RequestRow, RunListItem } from '#shared/protocol/apiSchemas.ts';

describe('the stall board in the browser', () => {
  it('says when the reply holds fewer groups than matched, and nothing when it holds them all', () => {
    const groups = Array.from({ length: 100 }, () => ({}) as StallGroupReply);
    expect(groupsShown({ groups, groupsTotal: 1852 })).toBe('Showing the 100 most frequent of 1,852 groups.');
    expect(groupsShown({ groups, groupsTotal: 100 })).toBeNull();
    expect(groupsShown({ groups: [], groupsTotal: 0 })).toBeNull();
  });

  it('asks for the default groups unless the URL asks for more, and offers the next ones until all are shown', () => {
    const groups = (n: number) => Array.from({ length: n }, () => ({}) as StallGroupReply);
    // The default is the server's own: not asked for, so the page's read is the board kept warm at ready.
    expect(stallsFilter({})).toEqual({ metadata: [] });
    expect(stallsFilter({ groups: '50' })).toEqual({ metadata: [], limit: 50 });
    expect(stallsFilter({ groups: '25' })).toEqual({ metadata: [] });
    expect([shownGroups({}), shownGroups({ groups: '0' }), shownGroups({ groups: '5000' })]).toEqual([25, 25, 1000]);
    expect(moreGroups({ meta: 'ci_step=tts' }, { groups: groups(25), groupsTotal: 852 })).toEqual({
      query: { meta: 'ci_step=tts', groups: '50' },
      more: 25,
    });
    expect(moreGroups({ groups: '50' }, { groups: groups(50), groupsTotal: 60 })).toEqual({
      query: { groups: '60' },
      more: 10,
    });
    expect(moreGroups({}, { groups: groups(12), groupsTotal: 12 })).toBeNull();
    expect(moreGroups({ groups: '1000' }, { groups: groups(1000), groupsTotal: 1852 })).toBeNull();
    const r: Route = { page: 'stalls', meta: 'ci_step=tts', groups: '50' };
    expect(parseRoute(href(r))).toEqual(r);
    expect(parseRoute('#/stalls?groups=abc')).toEqual({ page: 'stalls' });
  });

  it('keeps a board drawn only while more groups of the same filters load', () => {
    const f = (q: Parameters<typeof stallsFilter>[0]) => stallsFilter(q);
    const base = { meta: 'ci_step=tts', since: '2026-04-01' };
    expect(moreOfSameBoard(f(base), f({ ...base, groups: '50' }))).toBe(true);
    expect(moreOfSameBoard(f({ ...base, groups: '50' }), f({ ...base, groups: '75' }))).toBe(true);
    // Fewer groups, the same count, or any other filter changed: a different board, loaded afresh.
    expect(moreOfSameBoard(f({ ...base, groups: '50' }), f(base))).toBe(false);
    expect(moreOfSameBoard(f(base), f({ ...base, groups: '25' }))).toBe(false);
    expect(moreOfSameBoard(f(base), f({ ...base, meta: 'ci_step=asr', groups: '50' }))).toBe(false);
    expect(moreOfSameBoard(f(base), f({ ...base, since: '2026-05-01', groups: '50' }))).toBe(false);
    expect(moreOfSameBoard(f(base), f({ ...base, until: '2026-05-01', groups: '50' }))).toBe(false);
    expect(moreOfSameBoard(f(base), f({ ...base, fp: 'a1b2c3d4e5f6', groups: '50' }))).toBe(false);
  });

  it('an occurrence’s evidence: a report is brought into view, a first timeout opens its request', () => {
    expect(evidenceRoute('ci-1', 'w0-op3')).toEqual({ page: 'run', id: 'ci-1', stall: 'w0-op3' });
    expect(evidenceRoute('ci-1', 'capture-2')).toEqual({ page: 'run', id: 'ci-1', stall: 'capture-2' });
    expect(evidenceRoute('ci-1', 'timeout-4')).toEqual({ page: 'run', id: 'ci-1', request: 4 });
    expect(['w0-op3', 'capture-2', 'timeout-4'].map(evidenceName)).toEqual([
      'watchdog: worker 0, op 3',
      'py-spy capture 2',
      'first timeout: request #4',
    ]);
  });

  it('a job’s strip as a row per node, each with its own runs in time order', () => {
    const cell = (id: string, node: string | null, outcome: 'passed' | 'stalled') => ({
      id,
      atMs: Number(id),
      build: id,
      node,
      outcome,
      fingerprint: outcome === 'stalled' ? 'f' : null,
      fingerprints: outcome === 'stalled' ? ['f'] : [],
      label: null,
    });
    const rate = (runs: number, stalled: number) => ({ runs, stalled, hangRate: stalled / runs, low: 0, high: 1 });
    const job: JobBoard = {
      pipeline: 'p',
      step: 's',
      runs: [cell('1', 'a', 'stalled'), cell('2', 'b', 'passed'), cell('3', 'a', 'passed'), cell('4', null, 'stalled')],
      nodes: [
        { node: '(unknown node)', ...rate(1, 1) },
        { node: 'a', ...rate(2, 1) },
        { node: 'b', ...rate(1, 0) },
      ],
      stalled: 2,
      hangRate: 0.5,
      low: 0,
      high: 1,
      total: rate(4, 2),
      priorControl: null,
      sentence: '',
    };
    expect(stripByNode(job).map((n) => [n.node, n.cells.map((c) => c.id)])).toEqual([
      ['(unknown node)', ['4']],
      ['a', ['1', '3']],
      ['b', ['2']],
    ]);
  });

  it('compares the latest occurrence that has a control with that control', () => {
    const occ = (runId: string, control: string | null) => ({
      runId,
      atMs: 0,
      build: null,
      node: null,
      commit: null,
      refs: [],
      control,
    });
    const g = { evidence: [occ('a', 'c1'), occ('b', 'c2'), occ('c', null)] } as unknown as StallGroupReply;
    expect(compareIds(g)).toEqual(['b', 'c2']);
    expect(compareIds({ evidence: [occ('a', null)] } as unknown as StallGroupReply)).toBeNull();
  });

  it('the filters travel in the URL and become the board’s query', () => {
    const routes: Route[] = [
      { page: 'stalls' },
      { page: 'stalls', meta: 'ci_node=a ci_step=b', since: '2026-04-01', until: '2026-05-01' },
      { page: 'run', id: 'ci-1', stall: 'w0-op3' },
      { page: 'run', id: 'ci-1', request: 2, stall: 'capture-1' },
    ];
    for (const r of routes) expect(parseRoute(href(r))).toEqual(r);
    expect(stallsFilter({ meta: 'ci_node=a  nonsense ci_step=b', since: '2026-04-01' })).toEqual({
      metadata: ['ci_node=a', 'ci_step=b'],
      since: '2026-04-01',
    });
  });
});

describe('the Compare picker and timelines', () => {
  it('free words search id, label and metadata values; key=value pairs match metadata exactly; dates bound it', () => {
    expect(pickerFilter('  14600 nightly ci_node=mi300-3 ', '2026-04-01', '')).toEqual({
      q: '14600 nightly',
      metadata: ['ci_node=mi300-3'],
      since: '2026-04-01',
      limit: 12,
    });
    expect(pickerFilter('', '', '')).toEqual({ limit: 12 });
  });

  it('names a found run by label, verdict, when it happened and where', () => {
    const r = {
      id: 'x',
      label: 'nightly',
      verdict: 'failed_closed',
      status: 'finished',
      startedAtMs: Date.UTC(2026, 3, 1),
      createdAtMs: Date.UTC(2026, 5, 1),
      metadata: { ci_build: '14607', ci_node: 'node-b' },
    } as unknown as RunListItem;
    expect(pickerLine(r)).toBe(`nightly · failed closed · ${dateTime(Date.UTC(2026, 3, 1))} · build 14607 on node-b`);
  });

  it('lanes run from send to end on the run’s own clock; a request that never ended runs to the end', () => {
    const row = (index: number, sentT: number | null, endT: number | null, status: string) =>
      ({ index, sentT, endT, status }) as RequestRow;
    const chart = laneChart(
      [row(0, 0, 50, 'completed'), row(1, 10, null, 'sent'), row(2, null, null, 'not_dispatched')],
      2,
    );
    expect(chart.spanMs).toBe(2000);
    expect(chart.lanes).toEqual([
      { index: 0, x0: 0, x1: 50, status: 'completed' },
      { index: 1, x0: 10, x1: 2000, status: 'sent' },
    ]);
  });
});
