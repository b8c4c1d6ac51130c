/**
 * A py-spy capture through the run's event stream: the reducer keeps it with
 * the run's stall reports (a watchdog recovery never touches it), threads are
 * ordered likely-blocked first with idle ones apart, the Copy text holds the
 * whole dump, and the Perfetto export has it as an instant event with every
 * thread's stack in its args.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import type { ServerStacksReport, StackFrame } from '#shared/stalls/stallReport.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { orderThreads, serverStacksText } from '#web/state/serverStacks.ts';
import { buildChromeTrace } from '#server/dashboard/export/chromeTrace.ts';
import { deepFreeze, numbered } from '#test/helpers/failFastRun.ts';

const f = (fn: string, file: string, line: number, language = 'python'): StackFrame => ({
  function: fn,
  file,
  line,
  column: 0,
  language,
});
const blocked = [
  f('wait', '/usr/lib/python3.11/threading.py', 327),
  f('_synchronize', '/srv/minicpmo_4_5/hift.py', 29),
  f('decode_batch', '/srv/minicpmo_4_5/batched_token2wav.py', 35),
];

const REPORT: ServerStacksReport = {
  source: 'py-spy',
  capture: 1,
  reason: { kind: 'first_timeout', requestIndex: 0, requestId: 'run-0', timeoutKind: 'total', elapsedS: 2 },
  rootPid: 100,
  native: false,
  capturedAtMs: 1_700_000_002_000,
  durationMs: 80,
  phase: 'hift',
  inferred: {
    phase: 'hift',
    rule: 'hift-file',
    pid: 101,
    tid: 101,
    threadName: 'MainThread',
    frame: blocked[1],
    frameIndex: 1,
  },
  requestIds: ['run-0'],
  processes: [
    {
      pid: 100,
      ppid: null,
      cmdline: 'python server.py',
      threads: [
        { name: 'MainThread', tid: 100, active: false, ownsGil: false, frames: [f('select', '/x/selectors.py', 1)] },
        { name: 'api', tid: 102, active: true, ownsGil: true, frames: [f('dumps', '/x/json.py', 2)] },
      ],
    },
    {
      pid: 101,
      ppid: 100,
      cmdline: 'python server.py (Code2Wav)',
      threads: [
        { name: 'feeder', tid: 103, active: false, ownsGil: false, frames: [f('wait', '/x/threading.py', 3)] },
        { name: 'MainThread', tid: 101, active: false, ownsGil: false, frames: blocked, phase: 'hift' },
      ],
    },
    {
      pid: 105,
      ppid: 100,
      cmdline: '/bin/sh',
      threads: [],
      error: { code: 'STACKS_NOT_PYTHON', message: 'not python' },
    },
  ],
  stack: blocked,
  notes: [],
};

const events: RunEvent[] = [
  {
    type: 'run.started',
    t: 0,
    runId: 'run',
    startedAtMs: 1_700_000_000_000,
    numRequests: 1,
    maxConcurrency: 1,
    requestRate: 'inf',
    failFast: true,
    model: 'm',
    baseUrl: 'http://127.0.0.1:8000',
  },
  { type: 'request.sent', t: 5, index: 0, requestId: 'run-0', attempt: 1 },
  { type: 'server.stacks', t: 2100, report: REPORT },
  {
    type: 'telemetry',
    t: 2200,
    event: {
      v: 1,
      ts: 1_700_000_002_200,
      type: 'watchdog.recovered',
      workerId: -1,
      opId: 1,
      requestIds: [],
      stalledS: 1,
    },
  },
];

describe('py-spy captures in the web model', () => {
  it('the reducer keeps the capture with the stall reports; a watchdog recovery does not match it', () => {
    const m = applyEvents(emptyRun('run'), deepFreeze(numbered(events)));
    expect(m.stalls).toHaveLength(1);
    expect(m.stalls[0]).toMatchObject({ t: 2100, recovered: null, report: { source: 'py-spy', phase: 'hift' } });
  });

  it('a capture that read no stack is not kept as a stall (no card, no count)', () => {
    const error = { code: 'STACKS_PYSPY_MISSING', message: 'py-spy not found' };
    const failed: ServerStacksReport = {
      ...REPORT,
      phase: 'unknown',
      inferred: null,
      processes: [{ pid: 100, ppid: null, cmdline: 'python server.py', threads: [], error }],
      stack: [],
      stackError: error.message,
    };
    const m = applyEvents(
      emptyRun('run'),
      deepFreeze(numbered([...events.slice(0, 2), { type: 'server.stacks', t: 2100, report: failed }])),
    );
    expect(m.stalls).toEqual([]);
  });

  it('threads: likely blocked first (phase, then active), idle ones apart', () => {
    expect(orderThreads(REPORT.processes[1]).likely.map((t) => t.tid)).toEqual([101]);
    expect(orderThreads(REPORT.processes[1]).idle.map((t) => t.tid)).toEqual([103]);
    expect(orderThreads(REPORT.processes[0])).toMatchObject({ likely: [{ tid: 102 }], idle: [{ tid: 100 }] });
  });

  it('Copy text: the inference, then every process and thread with its frames', () => {
    const text = serverStacksText(REPORT);
    expect(text).toMatch(/^Server stacks #1 \(py-spy\) of pid 100, at the first timeout \(request #0 run-0, total/);
    expect(text).toContain(
      'inferred phase: hift (rule hift-file) from _synchronize (/srv/minicpmo_4_5/hift.py:29) in pid 101',
    );
    expect(text).toContain('Process 101 (parent 100): python server.py (Code2Wav)');
    expect(text).toContain(
      'Thread 101 (idle, phase hift): "MainThread"\n    wait (/usr/lib/python3.11/threading.py:327)\n    _synchronize',
    );
    expect(text).toContain('Thread 102 (active, gil): "api"');
    expect(text).toContain('  STACKS_NOT_PYTHON: not python');
  });

  it('Perfetto: one instant event per capture, every thread stack in its args, at the capture time', () => {
    const trace = buildChromeTrace('run', null, events, []);
    const ev = trace.traceEvents.find((e) => e.cat === 'py-spy')!;
    expect(ev).toMatchObject({ ph: 'i', s: 'g', name: 'server stacks #1: hift (inferred)', ts: 2_000_000 });
    const procs = ev.args!.processes as { pid: number; threads: { tid: number; stack: string[] }[] }[];
    expect(procs.find((p) => p.pid === 101)!.threads.find((t) => t.tid === 101)!.stack).toEqual([
      'wait (/usr/lib/python3.11/threading.py:327)',
      '_synchronize (/srv/minicpmo_4_5/hift.py:29)',
      'decode_batch (/srv/minicpmo_4_5/batched_token2wav.py:35)',
    ]);
    expect(ev.args!.inferredFrom).toMatchObject({
      rule: 'hift-file',
      frame: '_synchronize (/srv/minicpmo_4_5/hift.py:29)',
    });
    expect(trace.traceEvents).toContainEqual(
      expect.objectContaining({ ph: 'M', pid: ev.pid, name: 'process_name', args: { name: 'server (py-spy)' } }),
    );
  });
});

describe('py-spy captures in the store', () => {
  it('each capture is one stall report of the run (beside a watchdog report of worker 0 op 1), with its phase', async () => {
    const { SqliteStore } = await import('#server/dashboard/store/sqlite/sqliteStore.ts');
    const { Hub } = await import('#server/dashboard/hub/hub.ts');
    const { newRun, stallEvent } = await import('#test/helpers/sampleEvents.ts');
    const store = new SqliteStore({ dataDir: null });
    const hub = new Hub(store);
    store.runs.insertRun(newRun('s1'));
    hub.open('s1', null);
    hub.append('s1', stallEvent('s1', 1));
    hub.append('s1', { type: 'server.stacks', t: 10, report: REPORT });
    hub.append('s1', { type: 'server.stacks', t: 20, report: { ...REPORT, capture: 2 } });
    store.writer.flush();
    const stalls = store.runs.stallReports('s1');
    expect(stalls.map((s) => (s.report as { source?: string }).source ?? 'watchdog')).toEqual([
      'watchdog',
      'py-spy',
      'py-spy',
    ]);
    expect(store.runs.list({ limit: 10, offset: 0 }).runs[0]).toMatchObject({ stallCount: 3, stallPhase: 'hift' });
    store.closeNow();
  });
});
