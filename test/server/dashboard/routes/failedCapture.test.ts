/**
 * A py-spy capture that read no stack (py-spy missing, no ptrace rights, not
 * a Python process) is not evidence of a stall: a run whose reporter still
 * sent one as a `server.stacks` report has the same stall count, stall phase
 * and stall reports as the same run without it, in the list and in its
 * detail; rows an older dashboard stored for such captures are not counted.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { describe, expect } from 'vitest';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';
import { recordRun } from '#test/helpers/dashboardApp.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';

/** What a capture without py-spy on PATH reported before the probe kept such captures to a warning. */
function failedCapture(capture: number, startedAtMs = 1_000_000): ServerStacksReport {
  const message = "py-spy not found ('py-spy'): install it with `pip install py-spy`";
  return {
    source: 'py-spy',
    capture,
    reason: { kind: 'first_timeout', requestIndex: 2, requestId: 'x-2', timeoutKind: 'total', elapsedS: 4 },
    rootPid: 4242,
    native: false,
    capturedAtMs: startedAtMs + 4012,
    durationMs: 30,
    phase: 'unknown',
    inferred: null,
    requestIds: ['x-2'],
    processes: [
      { pid: 4242, ppid: null, cmdline: 'python', threads: [], error: { code: 'STACKS_PYSPY_MISSING', message } },
    ],
    stack: [],
    stackError: message,
    notes: [message],
  };
}

/** The hang run's events with a failed capture right before `run.finished`. */
function withFailedCapture(runId: string): RunEvent[] {
  const events = hangRunEvents(runId);
  const end = events.findIndex((e) => e.type === 'run.finished');
  return [...events.slice(0, end), { type: 'server.stacks', t: 4012, report: failedCapture(1) }, ...events.slice(end)];
}

interface ListItem {
  id: string;
  stallCount: number;
  stallPhase: string | null;
}

describe('a failed server-stacks capture is not a stall', () => {
  it('counts the same stalls as the run without it, in the list and the detail', async ({ app }) => {
    recordRun(app.hub, 'plain');
    recordRun(app.hub, 'captured', withFailedCapture('captured'));
    const list = (await app.inject({ url: '/api/runs' })).json() as { runs: ListItem[] };
    const by = Object.fromEntries(list.runs.map((r) => [r.id, r]));
    expect(by.plain).toMatchObject({ stallCount: 1, stallPhase: 'hift' });
    expect(by.captured).toMatchObject({ stallCount: 1, stallPhase: 'hift' });
    const detail = (await app.inject({ url: '/api/runs/captured' })).json() as {
      stallReports: { report: { source?: string; phase: string } }[];
    };
    expect(detail.stallReports.map((s) => [s.report.source ?? 'watchdog', s.report.phase])).toEqual([
      ['watchdog', 'hift'],
    ]);
  });

  it('leaves out such a capture an older dashboard stored, from the counts and the detail', async ({ app }) => {
    recordRun(app.hub, 'legacy');
    // As a dashboard before this rule stored it: a stall row on worker -1 (captures) beside the run's own.
    sqliteOf(app.hub.store)
      .db.prepare('INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json) VALUES (?,?,?,?,?,?)')
      .run('legacy', -1, 1, 30, 'unknown', JSON.stringify(failedCapture(1)));
    const list = (await app.inject({ url: '/api/runs' })).json() as { runs: ListItem[] };
    expect(list.runs[0]).toMatchObject({ id: 'legacy', stallCount: 1, stallPhase: 'hift' });
    const detail = (await app.inject({ url: '/api/runs/legacy' })).json() as { stallReports: unknown[] };
    expect(detail.stallReports).toHaveLength(1);
  });
});
