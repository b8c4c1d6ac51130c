/**
 * GET /api/stalls on the maintainers' story, stored through the hub as real
 * runs are: builds 14528, 14598, 14604, 14606 and 14607 stalled in hift on
 * three nodes, 14541 and 14600 passed between them, and one run of another
 * step stalled in cfm. Filters by metadata and time; bad filters refused.
 * Also the runs list ordered by when a run happened, and its time filter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testApp, recordRun } from '#test/helpers/dashboardApp.ts';
import { completedRequest, hangRunEvents, runStarted, stallReport } from '#test/helpers/sampleEvents.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import type { StallsReply } from '#shared/stalls/stallsApi.ts';
import type { Hub } from '#server/dashboard/hub/hub.ts';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';

let app: FastifyInstance;
afterEach(async () => app?.close());

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 3, 1, 0, 0, 0);

/** A run that passed: one request completed. */
function passedEvents(runId: string, startedAtMs: number): RunEvent[] {
  return [
    runStarted(runId, 1, startedAtMs),
    ...completedRequest(runId, 0),
    {
      type: 'run.finished',
      t: 10,
      summary: {
        verdict: 'passed',
        verdictReasons: [],
        durationS: 0.01,
        breakerTripped: false,
        cause: null,
        counts: { ...ZERO, total: 1, completed: 1 },
        metrics: {},
      },
    },
  ];
}
const ZERO = {
  total: 0,
  completed: 0,
  failed: 0,
  timedOut: 0,
  cancelledAfterTimeout: 0,
  cancelled: 0,
  errored: 0,
  unsent: 0,
};

/** A stalled run whose watchdog stack is `fn` in `phase` (the sample hang run, its report's stack replaced). */
function stalledEvents(runId: string, startedAtMs: number, phase: string, fn: string): RunEvent[] {
  return hangRunEvents(runId, startedAtMs).map((e) =>
    e.type === 'telemetry' && e.event.type === 'watchdog.stall'
      ? {
          ...e,
          event: {
            ...e.event,
            report: {
              ...stallReport(runId, 5, phase),
              requestIds: [`${runId}-2`, `${runId}-3`],
              stack: [
                {
                  function: fn,
                  file: `/n/${runId}/code2wav/${phase}.py`,
                  line: Number(runId.length),
                  column: 0,
                  language: 'python',
                },
              ],
            },
          },
        }
      : e,
  );
}

const ci = (build: string, node: string, step = 'minicpmo-accuracy') => ({
  ci_provider: 'buildkite',
  ci_build: build,
  ci_node: node,
  ci_commit: `c${build}`,
  ci_pipeline: 'vllm-omni',
  ci_step: step,
});

/** The story, one run an hour from T0; returns the run ids in order. */
function story(hub: Hub): string[] {
  const runs: [string, string, 'stall' | 'pass'][] = [
    ['14528', 'node-a', 'stall'],
    ['14541', 'node-b', 'pass'],
    ['14598', 'node-b', 'stall'],
    ['14600', 'node-c', 'pass'],
    ['14604', 'node-c', 'stall'],
    ['14606', 'node-a', 'stall'],
    ['14607', 'node-b', 'stall'],
  ];
  runs.forEach(([build, node, kind], i) => {
    const id = `run-${build}`;
    const at = T0 + i * HOUR;
    const events = kind === 'stall' ? stalledEvents(id, at, 'hift', '_synchronize') : passedEvents(id, at);
    recordRun(hub, id, events, { metadata: ci(build, node) });
  });
  recordRun(hub, 'run-cfm', stalledEvents('run-cfm', T0 + 8 * HOUR, 'cfm', 'solve_euler'), {
    metadata: ci('14610', 'node-d', 'qwen-accuracy'),
  });
  return runs.map(([b]) => `run-${b}`);
}

const board = async (query = '') => {
  const r = await app.inject({ url: `/api/stalls${query}` });
  expect(r.statusCode, r.body).toBe(200);
  return r.json() as StallsReply;
};

describe('GET /api/stalls', () => {
  it('one group per fingerprint: five occurrences on three nodes with their controls, and the cfm run apart', async () => {
    app = await testApp();
    story(app.hub);
    const { groups, runsConsidered, truncated } = await board();
    expect({ runsConsidered, truncated }).toEqual({ runsConsidered: 8, truncated: false });
    const hift = stallFingerprint('hift', [{ function: '_synchronize', file: 'hift.py' }]);
    expect(groups.map((g) => [g.fingerprint, g.label, g.occurrences])).toEqual([
      [hift.fingerprint, 'hift/_synchronize', 5],
      [stallFingerprint('cfm', [{ function: 'solve_euler', file: 'cfm.py' }]).fingerprint, 'cfm/solve_euler', 1],
    ]);
    const [g] = groups;
    expect(g).toMatchObject({
      phase: 'hift',
      frames: ['_synchronize (hift.py)'],
      runs: ['run-14528', 'run-14598', 'run-14604', 'run-14606', 'run-14607'],
      builds: ['14528', '14598', '14604', '14606', '14607'],
      nodes: ['node-a', 'node-b', 'node-c'],
      commits: ['c14528', 'c14598', 'c14604', 'c14606', 'c14607'],
      controls: { runs: ['run-14541', 'run-14600'], builds: ['14541', '14600'] },
      firstSeen: T0,
      lastSeen: T0 + 6 * HOUR,
    });
    // Each occurrence links to its evidence (the watchdog report, the first timeout's request) and its control.
    expect(g.evidence[0]).toEqual({
      runId: 'run-14528',
      atMs: T0,
      build: '14528',
      node: 'node-a',
      commit: 'c14528',
      buildUrl: null, // the story's runs report no ci_build_url
      refs: ['w0-op5', 'timeout-2'],
      control: 'run-14541',
    });
    expect(g.evidence.map((o) => o.control)).toEqual(['run-14541', 'run-14541', 'run-14600', 'run-14600', 'run-14600']);
    expect(g.jobs).toHaveLength(1);
    expect(g.jobs[0].sentence).toBe(
      'fingerprint hift/_synchronize seen in 5 of the last 7 runs of minicpmo-accuracy (builds 14528, 14598, 14604, 14606, 14607) on 3 nodes; passing controls 14541, 14600',
    );
    expect(g.jobs[0].nodes).toMatchObject([
      { node: 'node-a', runs: 2, stalled: 2, hangRate: 1 },
      { node: 'node-b', runs: 3, stalled: 2, hangRate: 2 / 3 },
      { node: 'node-c', runs: 2, stalled: 1, hangRate: 0.5 },
    ]);
    expect(groups[1].controls).toEqual({ runs: [], builds: [] }); // its step never passed
  });

  it('answers in camelCase like the rest of the API, with the deprecated snake_case names as equal aliases', async () => {
    app = await testApp();
    story(app.hub);
    const reply = (await board()) as StallsReply & Record<string, unknown>;
    expect(reply.runsConsidered).toBe(8);
    expect(reply.runs_considered).toBe(reply.runsConsidered);
    expect(reply.groups).toHaveLength(2);
    for (const g of reply.groups) {
      expect(g.firstSeen).toBeLessThanOrEqual(g.lastSeen);
      expect({ first_seen: g.first_seen, last_seen: g.last_seen }).toEqual({
        first_seen: g.firstSeen,
        last_seen: g.lastSeen,
      });
    }
    // Every other key of the reply is camelCase: the aliases are the only snake_case names, and only these.
    const keys = (o: object): string[] => Object.keys(o);
    const snake = [
      ...keys(reply),
      ...reply.groups.flatMap((g) => [
        ...keys(g),
        ...g.evidence.flatMap(keys),
        ...g.jobs.flatMap((j) => [...keys(j), ...j.runs.flatMap(keys), ...j.nodes.flatMap(keys)]),
      ]),
    ].filter((k) => k.includes('_'));
    expect(new Set(snake)).toEqual(new Set(['runs_considered', 'first_seen', 'last_seen']));
  });

  it('filters by any metadata key and by when the runs happened', async () => {
    app = await testApp();
    story(app.hub);
    const onA = await board('?metadata=ci_node=node-a');
    expect(onA.groups.map((g) => [g.label, g.runs])).toEqual([['hift/_synchronize', ['run-14528', 'run-14606']]]);
    const step = await board('?metadata=ci_step=qwen-accuracy&metadata=ci_pipeline=vllm-omni');
    expect(step.groups.map((g) => g.label)).toEqual(['cfm/solve_euler']);
    // Epoch ms or a date: the first three hours hold 14528 (stalled), 14541 (passed), 14598 (stalled).
    const early = await board(`?since=${T0}&until=${new Date(T0 + 3 * HOUR).toISOString()}`);
    expect(early.runsConsidered).toBe(3);
    expect(early.groups[0]).toMatchObject({ runs: ['run-14528', 'run-14598'], controls: { builds: ['14541'] } });
    expect((await board(`?since=2027-01-01`)).groups).toEqual([]);
    // One fingerprint's groups, as a CI summary links to them.
    expect(
      (
        await board(
          `?fingerprint=${stallFingerprint('hift', [{ function: '_synchronize', file: 'hift.py' }]).fingerprint}`,
        )
      ).groups.map((g) => g.label),
    ).toEqual(['hift/_synchronize']);
  });

  it('refuses a filter it cannot read, naming it', async () => {
    app = await testApp();
    for (const [query, field] of [
      ['?since=yesterday', 'since'],
      ['?until=12:00', 'until'],
      ['?metadata=ci_node', 'metadata'],
      ['?fingerprint=hift', 'fingerprint'],
    ]) {
      const r = await app.inject({ url: `/api/stalls${query}` });
      expect(r.statusCode, query).toBe(400);
      expect(r.json()).toMatchObject({ code: 'API_BAD_REQUEST', field });
    }
  });
});

describe('GET /api/runs in the order runs happened', () => {
  it('an import of last month’s file sorts below tonight’s run, and since/until select by that time', async () => {
    app = await testApp();
    recordRun(app.hub, 'tonight', passedEvents('tonight', T0 + 30 * 24 * HOUR));
    const file = JSON.stringify({
      date: '20260305-120000',
      backend: 'openai-chat-omni',
      completed: 4,
      duration: 2,
      ci_build: '14400',
    });
    const imp = await app.inject({
      method: 'POST',
      url: '/api/import',
      headers: { 'content-type': 'text/plain', 'x-filename': 'nightly.json' },
      payload: file,
    });
    expect(imp.statusCode, imp.body).toBe(201);
    const list = (await app.inject({ url: '/api/runs' })).json() as {
      runs: { id: string; source: string; metadata: Record<string, string> }[];
    };
    expect(list.runs.map((r) => r.source)).toEqual(['dashboard', 'import']);
    expect(list.runs[1].metadata).toMatchObject({ ci_build: '14400' });
    const march = (await app.inject({ url: '/api/runs?since=2026-03-01&until=2026-03-31' })).json() as {
      runs: { source: string }[];
    };
    expect(march.runs.map((r) => r.source)).toEqual(['import']);
  });
});
