/**
 * A stall card's Copy says which run, phase, op (or capture), how long and
 * which requests (index and id) before the stack, with the fingerprint that
 * finds the same hang elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';
import type { ServerStacksReport, WatchdogStallReport } from '#shared/stalls/stallReport.ts';
import { stallCopyText } from '#web/state/stallText.ts';

const stack = [
  { function: 'blockForever', file: 'server/repro/faults.ts', line: 10, column: 3, language: 'js' },
  { function: 'hift', file: 'server/repro/code2wav/kernels/hift.ts', line: 42, column: 7, language: 'js' },
];
const WATCHDOG: WatchdogStallReport = {
  source: 'watchdog',
  model: 'openbmb/MiniCPM-o-4_5',
  workerId: 0,
  opId: 3,
  requestIds: ['run-42-5', 'run-42-6', 'elsewhere-1'],
  phase: 'hift',
  details: {},
  inPhaseS: 1.1,
  inOpS: 1.4,
  capturedAtMs: 1,
  deadlineMs: 0,
  stack,
};
const indexById = { 'run-42-5': 5, 'run-42-6': 6, 'run-42-0': 0 };

describe('stall Copy text', () => {
  it('a watchdog report: run, worker, op, phase, age and state, requests, fingerprint, then the stack', () => {
    const text = stallCopyText(WATCHDOG, { runId: 'run-42', ageS: 12.44, state: 'still blocked', indexById });
    expect(text.split('\n')).toEqual([
      'Run run-42: Code2Wav stall, worker 0, op 3, phase hift, 12.4 s in hift (still blocked)',
      'Requests in the op: #5 run-42-5, #6 run-42-6, elsewhere-1',
      `Fingerprint: ${stallFingerprint('hift', stack).fingerprint} (hift/blockForever)`,
      'Owner-thread stack:',
      '  at blockForever (server/repro/faults.ts:10:3)',
      '  at hift (server/repro/code2wav/kernels/hift.ts:42:7)',
    ]);
  });

  it('a py-spy capture: run, capture, phase, age since the capture and requests before the dump', () => {
    const capture: ServerStacksReport = {
      source: 'py-spy',
      capture: 2,
      reason: { kind: 'no_progress', afterS: 5, silentS: 5.2 },
      rootPid: 100,
      native: false,
      capturedAtMs: 1_700_000_000_000,
      durationMs: 50,
      phase: 'unknown',
      inferred: null,
      requestIds: ['run-42-0'],
      processes: [{ pid: 100, ppid: null, cmdline: 'python', threads: [] }],
      stack: [],
      notes: [],
    };
    const lines = stallCopyText(capture, { runId: 'run-42', ageS: 3, indexById }).split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'Run run-42: server stacks #2, phase unknown, 3.0 s since the capture',
      'Requests in flight: #0 run-42-0',
      `Fingerprint: ${stallFingerprint('unknown', []).fingerprint} (unknown)`,
      '',
    ]);
    expect(lines[4]).toMatch(/^Server stacks #2 \(py-spy\) of pid 100, no SSE event for 5 s/);
  });

  it('says where the run ran: its title, build with its URL, node, commit, job, and its dashboard link', () => {
    const metadata = {
      ci_build: '14607',
      ci_build_url: 'https://buildkite.com/vllm/vllm-omni/builds/14607',
      ci_node: 'mi325-agent-2',
      ci_commit: 'c0ffee1',
      ci_pipeline: 'vllm-omni',
      ci_step: 'minicpmo-accuracy',
    };
    const text = stallCopyText(WATCHDOG, {
      runId: 'run-42',
      ageS: 1,
      indexById,
      metadata,
      dashboardUrl: 'http://127.0.0.1:7077',
    });
    expect(text.split('\n').slice(0, 3)).toEqual([
      'Run build 14607 · mi325-agent-2 · minicpmo-accuracy (run-42): Code2Wav stall, worker 0, op 3, phase hift, 1.0 s in hift',
      'Where: build 14607 (https://buildkite.com/vllm/vllm-omni/builds/14607) · node mi325-agent-2 · commit c0ffee1 · job vllm-omni / minicpmo-accuracy',
      'Dashboard: http://127.0.0.1:7077/#/runs/run-42',
    ]);
    // A build URL that is not http(s) is not repeated as one.
    const odd = stallCopyText(WATCHDOG, {
      runId: 'r',
      ageS: 1,
      indexById,
      metadata: { ...metadata, ci_build_url: 'javascript:x' },
    });
    expect(odd).toContain('Where: build 14607 · node');
  });
});
