/**
 * Watchdog semantics with an injected clock and a scripted capture, so the
 * races can be played exactly: completion at the deadline, completion while
 * the pause is on its way, one report per op, `recovered`, close().
 */
import { describe, expect, it } from 'vitest';
import { createProgressBuffer, ProgressReader, ProgressWriter } from '#server/repro/watchdog/progress.ts';
import { WatchdogMonitor } from '#server/repro/watchdog/monitor.ts';
import type { TelemetryInput } from '#server/repro/telemetry/outbox.ts';
import type { CaptureResult } from '#server/repro/watchdog/stackCapture.ts';

function rig(timeoutS: number, capture: (whilePaused: () => boolean) => CaptureResult) {
  const sab = createProgressBuffer();
  const writer = new ProgressWriter(sab);
  const reader = new ProgressReader(sab);
  let now = 1_000_000;
  const events: TelemetryInput[] = [];
  const logs: string[] = [];
  let captures = 0;
  const monitor = new WatchdogMonitor({
    timeoutS,
    model: 'm',
    now: () => now,
    workers: () => [{ id: 0, threadId: 1, reader, requestIdsOf: (op) => [`req-${op}`] }],
    emit: (e) => events.push(e),
    log: (b) => logs.push(b),
    capture: async (_tid, whilePaused) => {
      captures++;
      return capture(whilePaused);
    },
  });
  return {
    writer,
    reader,
    monitor,
    events,
    logs,
    captures: () => captures,
    clock: {
      get: () => now,
      set: (t: number) => {
        now = t;
      },
    },
  };
}

describe('watchdog monitor', () => {
  it('never reports 10,000 operations that complete right at their deadline', async () => {
    const timeoutMs = 20;
    let completeDuringPause: (() => void) | null = null;
    const r = rig(timeoutMs / 1000, (whilePaused) => {
      completeDuringPause?.(); // the op finishes before the pause lands
      return { frames: [], capturedAtMs: r.clock.get(), verified: whilePaused(), durationMs: 1 };
    });
    for (let op = 1; op <= 10_000; op++) {
      const t = r.clock.get();
      r.writer.begin(op, 1, t);
      r.writer.phase('hift', { samples: op }, t);
      r.clock.set(t + timeoutMs); // exactly the deadline
      if (op % 2 === 0) {
        r.writer.end(t + timeoutMs); // ends at the deadline, before the poll
        completeDuringPause = null;
      } else {
        completeDuringPause = () => r.writer.end(t + timeoutMs); // ends while the capture is under way
      }
      await r.monitor.poll();
      if (op % 2 === 1) r.monitor.opEnded(0, op, t + timeoutMs);
      r.clock.set(t + timeoutMs + 1);
    }
    expect(r.captures()).toBe(5000); // the race was really played on every odd op
    expect(r.events).toEqual([]);
    expect(r.logs).toEqual([]);
    await r.monitor.close();
  });

  it('reports a stalled op once, with its phase, details, timings and the captured frames; then recovered', async () => {
    const frame = {
      function: 'blockOnDeviceSync',
      file: '/x/server/repro/code2wav/worker/hang.ts',
      line: 16,
      column: 20,
      language: 'js',
    };
    const r = rig(1, (whilePaused) => ({
      frames: [frame],
      capturedAtMs: r.clock.get() + 3,
      verified: whilePaused(),
      durationMs: 3,
    }));
    r.writer.begin(5, 2, 10_000);
    r.writer.phase('setup', { batch_size: 2 }, 10_000);
    r.writer.phase('hift', { mel_frames: 50, samples: 24000 }, 10_500);
    r.clock.set(11_499);
    await r.monitor.poll();
    expect(r.captures()).toBe(0); // 1 ms before the deadline
    r.clock.set(11_600);
    await r.monitor.poll();
    r.clock.set(13_000);
    await r.monitor.poll(); // still stalled: no second report for the same op
    const stalls = r.events.filter((e) => e.type === 'watchdog.stall');
    expect(stalls).toHaveLength(1);
    const report = stalls[0].report;
    expect(report).toEqual({
      model: 'm',
      workerId: 0,
      opId: 5,
      requestIds: ['req-5'],
      phase: 'hift',
      details: { mel_frames: 50, samples: 24000 },
      inPhaseS: 1.103,
      inOpS: 1.603,
      capturedAtMs: 11_603,
      deadlineMs: 11_500,
      stack: [frame],
    });
    expect(r.logs[0]).toContain('phase hift');
    expect(r.logs[0]).toContain('mel_frames=50 samples=24000');
    expect(r.logs[0]).toContain('at blockOnDeviceSync (/x/server/repro/code2wav/worker/hang.ts:16:20)');
    r.writer.end(14_000);
    r.monitor.opEnded(0, 5, 14_000);
    expect(r.events.at(-1)).toEqual({
      type: 'watchdog.recovered',
      workerId: 0,
      opId: 5,
      requestIds: ['req-5'],
      stalledS: 3.5,
    });
    await r.monitor.close();
  });

  it('still reports (without frames, with the reason) when capture fails but the op is verifiably stuck', async () => {
    const r = rig(0.1, () => ({
      frames: [],
      capturedAtMs: 0,
      verified: false,
      durationMs: 1500,
      error: 'waiting for the worker to pause timed out after 1500 ms',
    }));
    r.writer.begin(1, 1, 0);
    r.writer.phase('cfm', { step: 3 }, 0);
    r.clock.set(200);
    await r.monitor.poll();
    const stall = r.events.find((e) => e.type === 'watchdog.stall') as Extract<
      TelemetryInput,
      { type: 'watchdog.stall' }
    >;
    expect(stall.report.stack).toEqual([]);
    expect(stall.report.stackError).toContain('timed out');
    expect(r.logs[0]).toContain('stack: not captured');
  });

  it('leaves no timer behind after close()', async () => {
    const r = rig(0.05, (w) => ({ frames: [], capturedAtMs: 1, verified: w(), durationMs: 0 }));
    const before = process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length;
    r.monitor.start();
    expect(process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length).toBe(before + 1);
    await r.monitor.close();
    expect(process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length).toBe(before);
  });
});
