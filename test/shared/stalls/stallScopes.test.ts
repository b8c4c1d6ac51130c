/**
 * The maintainers' story: one CI job (eight runs on three nodes: five hang in
 * HiFT, two pass — one before the first hang, outside a short `last` — one
 * fails for another reason) and two local runs of the same hang beside a
 * passing local one. The board must count what its sentence counts: the CI
 * job's group is 5 of 8 (63 %), its last seen a CI run; the local runs are a
 * group of their own.
 */
import { describe, expect, it } from 'vitest';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';
import { buildBoard } from '#shared/stalls/stallsApi.ts';
import type { BoardRun, StallEvidence } from '#shared/stalls/stallBoard.ts';

const hift = stallFingerprint('hift', [{ function: 'blockOnDeviceSync', file: 'hift.py' }]);
const stack: StallEvidence = { kind: 'watchdog', ref: 'w0-op1', ...hift };

let t = 1_700_000_000_000;
function ci(build: string, node: string, outcome: 'passed' | 'stalled' | 'failed'): BoardRun {
  t += 3_600_000;
  return {
    id: `bench-${build}`,
    atMs: t,
    verdict: outcome === 'passed' ? 'passed' : 'failed_closed',
    status: 'finished',
    label: null,
    metadata: {
      ci_provider: 'buildkite',
      ci_build: build,
      ci_node: node,
      ci_commit: `c${build}`,
      ci_pipeline: 'vllm-omni',
      ci_step: 'minicpmo-accuracy',
    },
    evidence: outcome === 'stalled' ? [stack] : [],
  };
}
function local(id: string, stalled: boolean): BoardRun {
  t += 3_600_000;
  return {
    id,
    atMs: t,
    verdict: stalled ? 'failed_closed' : 'passed',
    status: 'finished',
    label: null,
    metadata: {},
    evidence: stalled ? [stack] : [],
  };
}

const RUNS = [
  ci('14500', 'node-a', 'passed'),
  ci('14528', 'node-a', 'stalled'),
  local('local-ok', false),
  ci('14541', 'node-b', 'passed'),
  ci('14598', 'node-b', 'stalled'),
  ci('14604', 'node-c', 'stalled'),
  local('local-1', true),
  ci('14606', 'node-a', 'stalled'),
  ci('14607', 'node-b', 'stalled'),
  ci('14610', 'node-c', 'failed'),
  local('local-2', true),
];
const at = (id: string) => RUNS.find((r) => r.id === id)!.atMs;

describe('the board counts what its sentence counts', () => {
  it('the CI job is one group of its own runs: 5 of 8, its onset, its controls, its sentence', () => {
    const [job, , ...rest] = buildBoard(RUNS, 20);
    expect(rest).toEqual([]);
    expect(job).toMatchObject({
      scope: 'job',
      pipeline: 'vllm-omni',
      step: 'minicpmo-accuracy',
      fingerprint: hift.fingerprint,
      occurrences: 5,
      runs: ['bench-14528', 'bench-14598', 'bench-14604', 'bench-14606', 'bench-14607'],
      builds: ['14528', '14598', '14604', '14606', '14607'],
      nodes: ['node-a', 'node-b', 'node-c'],
      scopeRuns: 8,
      hangRate: 5 / 8,
      controls: { runs: ['bench-14500', 'bench-14541'], builds: ['14500', '14541'] },
      firstSeen: at('bench-14528'),
      lastSeen: at('bench-14607'),
      onset: {
        lastPassing: { runId: 'bench-14500', build: '14500', commit: 'c14500', atMs: at('bench-14500') },
        firstStalled: { runId: 'bench-14528', build: '14528', commit: 'c14528', atMs: at('bench-14528') },
      },
    });
    // Each node of the job: its runs, this hang's runs among them, and the 95 % Wilson interval of that rate.
    expect(job.nodeRates.map((n) => [n.node, n.runs, n.stalled])).toEqual([
      ['node-a', 3, 2],
      ['node-b', 3, 2],
      ['node-c', 2, 1],
    ]);
    expect(job.nodeRates[0].low).toBeCloseTo(0.2077, 4);
    expect(job.nodeRates[0].high).toBeCloseTo(0.9385, 4);
    expect(job.nodeRates[2].low).toBeCloseTo(0.0945, 4);
    expect(job.nodeRates[2].high).toBeCloseTo(0.9055, 4);
    expect(job.low).toBeCloseTo(0.3057, 4);
    expect(job.high).toBeCloseTo(0.8632, 4);
    // The local runs never reach the job's occurrences, its last seen or its control of an occurrence.
    expect(job.evidence.map((o) => o.control)).toEqual([
      'bench-14500',
      'bench-14541',
      'bench-14541',
      'bench-14541',
      'bench-14541',
    ]);
    const [strip] = job.jobs;
    expect(strip.total).toMatchObject({ runs: 8, stalled: 5, hangRate: 5 / 8 });
    expect(strip.sentence).toBe(
      'fingerprint hift/blockOnDeviceSync seen in 5 of the last 8 runs of minicpmo-accuracy ' +
        '(builds 14528, 14598, 14604, 14606, 14607) on 3 nodes; passing controls 14500, 14541',
    );
  });

  it('the local runs are a group apart, with their own rate and control', () => {
    const loc = buildBoard(RUNS, 20)[1];
    expect(loc).toMatchObject({
      scope: 'local',
      pipeline: null,
      step: null,
      fingerprint: hift.fingerprint,
      occurrences: 2,
      runs: ['local-1', 'local-2'],
      scopeRuns: 3,
      hangRate: 2 / 3,
      controls: { runs: ['local-ok'], builds: [] },
      lastSeen: at('local-2'),
      onset: { lastPassing: { runId: 'local-ok' }, firstStalled: { runId: 'local-1' } },
    });
    expect(loc.nodeRates).toMatchObject([{ node: '(unknown node)', runs: 3, stalled: 2 }]);
    expect(loc.jobs[0].sentence).toBe(
      'fingerprint hift/blockOnDeviceSync seen in 2 of the last 3 runs without CI metadata; passing controls local-ok',
    );
  });

  it('past `last`, the sentence names the nearest control and how far back it is', () => {
    const [job] = buildBoard(RUNS, 3);
    expect(job.occurrences).toBe(5); // the group's count is its scope's, the strip's window only the sentence's
    expect(job.jobs[0].runs.map((r) => r.id)).toEqual(['bench-14606', 'bench-14607', 'bench-14610']);
    expect(job.jobs[0].priorControl).toEqual({ id: 'bench-14541', build: '14541', runsBefore: 3 });
    expect(job.jobs[0].sentence).toBe(
      'fingerprint hift/blockOnDeviceSync seen in 2 of the last 3 runs of minicpmo-accuracy (builds 14606, 14607) ' +
        'on 2 nodes; no passing control in these 3 runs — the nearest, 14541, is 3 runs before them',
    );
  });

  it('a job whose first run stalled has no passing commit before its onset', () => {
    const [job] = buildBoard(RUNS.slice(1), 20);
    expect(job.onset.lastPassing).toBeNull();
    expect(job.onset.firstStalled.runId).toBe('bench-14528');
  });
});
