/**
 * The server-stacks probe beside the engine, with the capture replaced by a
 * recording fake: the first timeout captures once, one turn after the timer
 * (so the breaker's decision and sweep start first), with the requests in
 * flight; silence for S seconds captures, again at most every S seconds, at
 * most five times, and never for a request that keeps streaming; failures
 * become one run.warning each and notes in `server_stacks`; finish waits for
 * a capture in progress.
 */
import { describe, expect, it } from 'vitest';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';
import { ServerStacksProbe, MAX_NO_PROGRESS, type SilenceClock } from '#server/engine/probes/serverStacks/probe.ts';
import type { CaptureInput, CaptureOptions } from '#server/engine/probes/serverStacks/capture.ts';
import { loadPhaseRules } from '#server/engine/probes/serverStacks/rules.ts';
import type { Unstamped } from '#server/engine/records/events.ts';

const rules = loadPhaseRules();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Silence measured on a clock the test moves: a loaded machine delays real
 * timers by more than the 100 ms of silence these tests use, so a request that
 * "keeps streaming" on real timers can look silent.
 */
function manualClock() {
  let t = 0;
  const timers = new Set<{ ms: number; fn: () => void; next: number }>();
  const clock: SilenceClock = {
    now: () => t,
    every: (ms, fn) => {
      const h = { ms, fn, next: t + ms };
      timers.add(h);
      return () => timers.delete(h);
    },
  };
  /** Moves time by `ms`, firing each timer at its due times in order, and lets each capture settle. */
  const advance = async (ms: number) => {
    const end = t + ms;
    for (;;) {
      const due = [...timers].filter((h) => h.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      t = due.next;
      due.next += due.ms;
      due.fn();
      await new Promise((r) => setImmediate(r));
    }
    t = end;
  };
  return { clock, advance, timerCount: () => timers.size };
}

interface SetupOptions {
  stallAfterS?: number;
  captureOnTimeout?: boolean;
  delayMs?: number;
  notes?: string[];
  /** No py-spy at the path the probe looks at. */
  pySpyMissing?: boolean;
  /** The capture reads no process (every one failed with this error). */
  readNothing?: { code: string; message: string };
  clock?: SilenceClock;
}

/** One readable process with one thread blocked in hift: what a capture that worked returns. */
const PROCESS = {
  pid: 4242,
  ppid: null,
  cmdline: 'python -m omni',
  threads: [
    {
      name: 'MainThread',
      tid: 4242,
      active: true,
      ownsGil: true,
      frames: [{ function: 'istft', file: 'hift.py', line: 3, column: 0, language: 'python' }],
    },
  ],
};

function setup(over: SetupOptions = {}) {
  const calls: { at: number; inp: CaptureInput; opts: CaptureOptions }[] = [];
  const emitted: Unstamped[] = [];
  const order: string[] = [];
  const probe = new ServerStacksProbe({
    config: {
      pid: 4242,
      captureOnTimeout: over.captureOnTimeout ?? true,
      stallAfterS: over.stallAfterS,
      native: false,
      // A path that exists (this Node) stands for py-spy: the capture itself is the fake below.
      pySpy: over.pySpyMissing ? 'py-spy' : process.execPath,
    },
    clock: over.clock,
    pid: 4242,
    pidSource: 'flag',
    rules,
    path: '/nowhere',
    capture: async (opts, inp) => {
      order.push('capture');
      calls.push({ at: over.clock?.now() ?? performance.now(), inp, opts });
      if (over.delayMs) await sleep(over.delayMs);
      return {
        source: 'py-spy',
        capture: inp.capture,
        reason: inp.reason,
        rootPid: opts.rootPid,
        native: false,
        capturedAtMs: Date.now(),
        durationMs: 1,
        phase: 'unknown',
        inferred: null,
        requestIds: inp.requestIds,
        processes: over.readNothing ? [{ ...PROCESS, threads: [], error: over.readNothing }] : [PROCESS],
        stack: over.readNothing ? [] : PROCESS.threads[0].frames,
        ...(over.readNothing ? { stackError: over.readNothing.message } : {}),
        notes: over.notes ?? [],
      } satisfies ServerStacksReport;
    },
  });
  probe.start({ emit: (e) => emitted.push(e), log: () => undefined });
  const ev = (e: Unstamped) => probe.onEvent({ ...e, t: 0 } as BenchEvent);
  const sent = (index: number) => ev({ type: 'request.sent', index, requestId: `r-${index}`, attempt: 1 });
  const outcome = (index: number) => ({ index, requestId: `r-${index}` }) as never;
  return { probe, calls, emitted, order, ev, sent, outcome };
}

describe('ServerStacksProbe', () => {
  it('captures once at the first timeout, one turn after the timer, with the requests in flight', async () => {
    const s = setup();
    s.sent(0);
    s.sent(1);
    // In the timer, the breaker is told first: its decision and sweep are queued one turn later.
    setImmediate(() => s.order.push('breaker sweep'));
    s.probe.onTimeout({ index: 1, requestId: 'r-1', kind: 'total', elapsedS: 2 });
    s.probe.onTimeout({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 2 });
    expect(s.calls).toHaveLength(0); // nothing in the timer's own turn
    const out = (await s.probe.finish()) as { server_stacks: { captures: ServerStacksReport[]; server_pid: number } };
    expect(s.order).toEqual(['breaker sweep', 'capture']);
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0].inp.reason).toMatchObject({ kind: 'first_timeout', requestIndex: 1, timeoutKind: 'total' });
    expect(s.calls[0].inp.requestIds).toEqual(['r-0', 'r-1']);
    expect(out.server_stacks.server_pid).toBe(4242);
    expect(out.server_stacks.captures.map((c) => c.capture)).toEqual([1]);
    expect(s.emitted.filter((e) => e.type === 'server.stacks')).toHaveLength(1);
  });

  it('without --capture-server-stacks a timeout captures nothing', async () => {
    const s = setup({ captureOnTimeout: false });
    s.sent(0);
    s.probe.onTimeout({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 2 });
    await sleep(20);
    await s.probe.finish();
    expect(s.calls).toHaveLength(0);
  });

  it('no SSE event for S s: captures the silent requests only, again at most every S s, at most 5 times', async () => {
    const m = manualClock();
    const s = setup({ stallAfterS: 0.1, captureOnTimeout: false, clock: m.clock });
    s.sent(0); // goes silent
    s.sent(1); // keeps streaming, every 20 ms
    for (let ms = 0; ms < 1200; ms += 20) {
      await m.advance(20);
      s.ev({ type: 'request.progress', index: 1, outputTokens: 1, audioS: 0 });
    }
    await s.probe.finish();
    expect(m.timerCount()).toBe(0); // finish stopped the check
    expect(s.calls).toHaveLength(MAX_NO_PROGRESS);
    for (const c of s.calls) {
      expect(c.inp.reason).toMatchObject({ kind: 'no_progress', afterS: 0.1 });
      expect(c.inp.requestIds).toEqual(['r-0']);
    }
    // The first at 100 ms of silence (the check runs every 50 ms), then one every 100 ms.
    expect(s.calls.map((c) => c.at)).toEqual([100, 200, 300, 400, 500]);
  });

  it('a request that ended is no longer watched', async () => {
    const m = manualClock();
    const s = setup({ stallAfterS: 0.1, captureOnTimeout: false, clock: m.clock });
    s.sent(0);
    s.ev({ type: 'request.completed', outcome: s.outcome(0) });
    s.sent(1); // a second one that goes silent: the check itself runs
    await m.advance(300);
    await s.probe.finish();
    expect(s.calls.map((c) => c.inp.requestIds)).toEqual([['r-1'], ['r-1'], ['r-1']]); // at 100, 200 and 300 ms
  });

  it('failures: each distinct note once, as run.warning and in the notes', async () => {
    const s = setup({ notes: ['py-spy may not read process 4343 (permission denied): ...'] });
    s.sent(0);
    s.probe.onTimeout({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 2 });
    const out = (await s.probe.finish()) as { server_stacks: { notes: string[]; captures: unknown[] } };
    const warnings = s.emitted.filter((e) => e.type === 'run.warning').map((e) => (e as { message: string }).message);
    expect(warnings).toEqual([expect.stringMatching(/^server stacks: py-spy may not read process 4343/)]);
    expect(out.server_stacks.notes).toHaveLength(1);
    expect(out.server_stacks.captures).toHaveLength(1); // the rest of the tree was read: evidence
  });

  it('py-spy missing: one warning with what to install, and no capture at the timeout or after silence', async () => {
    const m = manualClock();
    const s = setup({ pySpyMissing: true, stallAfterS: 0.05, clock: m.clock });
    s.sent(0);
    s.probe.onTimeout({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 2 });
    await m.advance(200);
    const out = (await s.probe.finish()) as { server_stacks: { notes: string[]; captures: unknown[] } };
    expect(s.calls).toHaveLength(0);
    expect(s.emitted.filter((e) => e.type === 'server.stacks')).toHaveLength(0);
    expect(s.emitted.map((e) => (e as { message?: string }).message)).toEqual([
      expect.stringMatching(/^server stacks: py-spy not found \('py-spy'\): install it with `pip install py-spy`/),
    ]);
    expect(out.server_stacks.captures).toEqual([]);
    expect(out.server_stacks.notes).toEqual([expect.stringContaining('pip install py-spy')]);
  });

  it('a capture that read no process is a warning, not a server.stacks report', async () => {
    const message = 'process 4242 is not a Python process py-spy can read (no python)';
    const s = setup({ readNothing: { code: 'STACKS_NOT_PYTHON', message }, notes: [message] });
    s.sent(0);
    s.probe.onTimeout({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 2 });
    const out = (await s.probe.finish()) as { server_stacks: { notes: string[]; captures: unknown[] } };
    expect(s.calls).toHaveLength(1);
    expect(s.emitted.filter((e) => e.type === 'server.stacks')).toHaveLength(0);
    expect(s.emitted.map((e) => (e as { message?: string }).message)).toEqual([`server stacks: ${message}`]);
    expect(out.server_stacks.captures).toEqual([]);
    expect(out.server_stacks.notes).toEqual([message]);
  });

  it('finish waits for a capture in progress', async () => {
    const s = setup({ delayMs: 200 });
    s.sent(0);
    s.probe.onTimeout({ index: 0, requestId: 'r-0', kind: 'total', elapsedS: 2 });
    await sleep(10);
    const t0 = performance.now();
    const out = (await s.probe.finish()) as { server_stacks: { captures: unknown[] } };
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150);
    expect(out.server_stacks.captures).toHaveLength(1);
  });
});

describe('trimToBudget', () => {
  it('keeps a capture bounded: idle threads lose their deep frames first, the blocked one keeps its stack', async () => {
    const { trimToBudget } = await import('#server/engine/probes/serverStacks/capture.ts');
    const frames = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        function: `f${i}`,
        file: 'x.py',
        line: i,
        column: 0,
        language: 'python',
      }));
    const idle = Array.from({ length: 100 }, (_, i) => ({
      name: `w${i}`,
      tid: i,
      active: false,
      ownsGil: false,
      frames: frames(40),
    }));
    const hung = { name: 'MainThread', tid: 999, active: false, ownsGil: false, frames: frames(40), phase: 'hift' };
    const procs = [{ pid: 1, ppid: null, cmdline: 'x', threads: [...idle, hung] }];
    trimToBudget(procs, 1200);
    expect(hung.frames).toHaveLength(40);
    expect(idle[0].frames).toHaveLength(10);
    expect(idle[0]).toMatchObject({ framesDropped: 30 });
    expect(procs[0].threads.reduce((n, t) => n + t.frames.length, 0)).toBeLessThanOrEqual(1200);
  });
});
