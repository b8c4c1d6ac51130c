/**
 * The maintainers' own story as data: builds 14528, 14598, 14604, 14606 and
 * 14607 stalled in hift on three nodes, 14541 and 14600 passed between them.
 */
import { describe, expect, it } from 'vitest';
import { groupStalls, runFingerprints, type BoardRun, type StallEvidence } from '#shared/stalls/stallBoard.ts';
import { jobStrip, patternSentence } from '#shared/stalls/jobStrip.ts';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';

const hift = stallFingerprint('hift', [
  { function: '_synchronize', file: 'torch/cuda/__init__.py' },
  { function: 'inference', file: 'hift.py' },
]);
const cfm = stallFingerprint('cfm', [{ function: 'solve_euler', file: 'flow_matching.py' }]);
const ev = (fp: typeof hift, kind: StallEvidence['kind'], ref: string): StallEvidence => ({ kind, ref, ...fp });
const timeoutOnly = stallFingerprint('unknown', []);

let t = 0;
function run(
  build: string,
  node: string,
  evidence: StallEvidence[],
  verdict = evidence.length ? 'failed_closed' : 'passed',
  step = 'minicpmo-accuracy',
): BoardRun {
  t += 3_600_000;
  return {
    id: `run-${build}`,
    atMs: t,
    verdict,
    status: 'finished',
    label: null,
    metadata: {
      ci_provider: 'buildkite',
      ci_build: build,
      ci_node: node,
      ci_commit: `c${build}`,
      ci_pipeline: 'vllm-omni',
      ci_step: step,
    },
    evidence,
  };
}

const STORY = [
  run('14528', 'node-a', [ev(hift, 'watchdog', 'w0-op3'), ev(timeoutOnly, 'timeout', 'timeout')]),
  run('14541', 'node-b', []),
  run('14598', 'node-b', [ev(hift, 'py-spy', 'capture-1')]),
  run('14600', 'node-c', []),
  run('14604', 'node-c', [ev(hift, 'watchdog', 'w1-op7'), ev(hift, 'watchdog', 'w1-op9')]),
  run('14606', 'node-a', [ev(hift, 'watchdog', 'w0-op2')]),
  run('14607', 'node-b', [ev(hift, 'py-spy', 'capture-1'), ev(timeoutOnly, 'timeout', 'timeout')]),
];

describe('groupStalls', () => {
  it('one fingerprint, five occurrences on three nodes, the two passing controls', () => {
    const groups = groupStalls(STORY);
    expect(groups).toHaveLength(1);
    const [g] = groups;
    expect(g).toMatchObject({
      fingerprint: hift.fingerprint,
      phase: 'hift',
      label: 'hift/_synchronize',
      occurrences: 5,
      runs: ['run-14528', 'run-14598', 'run-14604', 'run-14606', 'run-14607'],
      builds: ['14528', '14598', '14604', '14606', '14607'],
      nodes: ['node-a', 'node-b', 'node-c'],
      controls: { runs: ['run-14541', 'run-14600'], builds: ['14541', '14600'] },
      firstSeen: STORY[0].atMs,
      lastSeen: STORY[6].atMs,
    });
    // The run with two reports of the same fingerprint counts once; its timeout joined the stack fingerprint.
    expect(g.evidence.find((o) => o.runId === 'run-14604')!.refs).toEqual(['w1-op7', 'w1-op9']);
    expect(g.evidence.find((o) => o.runId === 'run-14528')!.refs).toEqual(['w0-op3', 'timeout']);
  });

  it('a stall in another phase forms a second group; a run with only a timeout a phase-only one', () => {
    const runs = [
      ...STORY,
      run('14610', 'node-d', [ev(cfm, 'watchdog', 'w0-op1')]),
      run('14611', 'node-d', [ev(timeoutOnly, 'timeout', 'timeout')]),
    ];
    const groups = groupStalls(runs);
    expect(groups.map((g) => [g.label, g.occurrences])).toEqual([
      ['hift/_synchronize', 5],
      ['unknown', 1],
      ['cfm/solve_euler', 1],
    ]);
    expect(runFingerprints(runs[8])).toHaveLength(1);
  });

  it('controls come from the same job only, and a failed run without a stall is no control', () => {
    const runs = [
      run('1', 'n', [ev(hift, 'watchdog', 'w')]),
      run('2', 'n', [], 'passed', 'other-step'),
      run('3', 'n', [], 'failed'),
      run('4', 'n', []),
    ];
    expect(groupStalls(runs)[0].controls.builds).toEqual(['4']);
  });
});

describe('jobStrip and patternSentence', () => {
  it('says it as the maintainers did', () => {
    const strip = jobStrip(STORY, 'vllm-omni', 'minicpmo-accuracy', 7);
    expect(strip.runs.map((r) => r.outcome)).toEqual([
      'stalled',
      'passed',
      'stalled',
      'passed',
      'stalled',
      'stalled',
      'stalled',
    ]);
    expect(strip.stalled).toBe(5);
    expect(strip.hangRate).toBeCloseTo(5 / 7);
    expect(strip.nodes).toMatchObject([
      { node: 'node-a', runs: 2, stalled: 2, hangRate: 1 },
      { node: 'node-b', runs: 3, stalled: 2, hangRate: 2 / 3 },
      { node: 'node-c', runs: 2, stalled: 1, hangRate: 0.5 },
    ]);
    expect(patternSentence(groupStalls(STORY)[0], strip)).toBe(
      'fingerprint hift/_synchronize seen in 5 of the last 7 runs of minicpmo-accuracy (builds 14528, 14598, 14604, 14606, 14607) on 3 nodes; passing controls 14541, 14600',
    );
  });
});
