/**
 * The watchdog against real Code2Wav worker threads: every fault kind in
 * every phase yields exactly one report naming that phase, whose top frame is
 * the named helper in server/target, captured from the paused thread after
 * the deadline; a reported `slow` op completes with unchanged audio and a
 * `recovered` event.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { C2W_PHASES, type FaultKind, type WatchdogStallReport } from '#shared/types.ts';
import type { TelemetryEvent } from '#shared/protocol/telemetry.ts';
import { Code2WavPool } from '#server/repro/code2wav/pool.ts';
import { FaultPlan, parseFaultSpec } from '#server/repro/code2wav/faults.ts';
import { TelemetryOutbox } from '#server/repro/telemetry/outbox.ts';
import { WatchdogMonitor } from '#server/repro/watchdog/monitor.ts';
import { item, localDecoder, MODEL, SETTINGS, sha, windowCodes } from '#test/helpers/code2wav.ts';
import { waitFor } from '#test/helpers/waitFor.ts';

const HELPER: Record<FaultKind, string> = {
  block: 'blockOnDeviceSync',
  spin: 'spinInKernel',
  slow: 'waitOnSlowDevice',
};
/** 1-based line range of a helper's body in hang.ts: a top frame mapped through the build's source maps lands inside it. */
const HANG_TS = readFileSync(
  fileURLToPath(new URL('../../../server/repro/code2wav/worker/hang.ts', import.meta.url)),
  'utf8',
).split('\n');
function helperLines(name: string): [number, number] {
  const start = HANG_TS.findIndex((l) => l.startsWith(`export function ${name}(`));
  const end = HANG_TS.findIndex((l, i) => i > start && l === '}');
  return [start + 1, end + 1];
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** One worker per phase; op N faults in phase N. */
async function faultInEveryPhase(kind: FaultKind, timeoutS: number) {
  const events: TelemetryEvent[] = [];
  const reports: WatchdogStallReport[] = [];
  const hub = new TelemetryOutbox(MODEL, [], (e) => events.push(e));
  let monitor: WatchdogMonitor | null = null;
  const pool = new Code2WavPool({
    workers: C2W_PHASES.length,
    maxBatch: 4,
    modelName: MODEL,
    seed: 3,
    settings: SETTINGS,
    telemetry: hub,
    inflight: () => 0,
    faults: new FaultPlan(
      C2W_PHASES.map((p, i) => parseFaultSpec(`${p}:${kind}:after=${i + 1}:ms=${kind === 'slow' ? 1600 : 0}`)),
      3,
    ),
    onOpEnd: (w, op, end) => monitor?.opEnded(w, op, end),
  });
  monitor = new WatchdogMonitor({
    timeoutS,
    model: MODEL,
    workers: () => pool.workers(),
    emit: (e) => hub.emit(e),
    log: () => undefined,
    onReport: (r) => reports.push(r),
  });
  cleanup.push(async () => {
    await monitor.close();
    await pool.close();
  });
  await pool.ready();
  monitor.start();
  const results = C2W_PHASES.map((_, i) => pool.submit(item(`r${i}`, windowCodes(i))));
  results.forEach((p) => void p.catch(() => undefined));
  return { pool, monitor, events, reports, results };
}

function checkReports(reports: WatchdogStallReport[], kind: FaultKind) {
  expect(reports.map((r) => `${r.phase}:${r.stack[0]?.function}`).sort()).toEqual(
    C2W_PHASES.map((p) => `${p}:${HELPER[kind]}`).sort(),
  );
  for (const r of reports) {
    expect(r.stack[0]?.function).toBe(HELPER[kind]);
    expect(r.stack[0]?.file).toMatch(/server\/repro\/code2wav\/worker\/hang\.ts$/);
    // The position is the .ts file's (the worker runs dist/**.js; its comments are gone, so unmapped lines differ).
    const [first, last] = helperLines(HELPER[kind]);
    expect(r.stack[0]?.line).toBeGreaterThan(first);
    expect(r.stack[0]?.line).toBeLessThan(last);
    expect(r.stack.some((f) => f.function === 'decodeBatch')).toBe(true);
    expect(r.stackError).toBeUndefined();
    // Captured from the paused thread after the deadline, not recorded earlier.
    expect(r.capturedAtMs).toBeGreaterThan(r.deadlineMs);
    expect(r.inPhaseS).toBeGreaterThanOrEqual(0.5);
    expect(r.capturedAtMs - r.deadlineMs).toBeLessThan(2000);
    expect(r.requestIds).toHaveLength(1);
    expect(Object.keys(r.details).length).toBeGreaterThan(0);
    expect(r.model).toBe(MODEL);
  }
  expect(new Set(reports.map((r) => `${r.workerId}:${r.opId}`)).size).toBe(reports.length);
}

describe('watchdog with real workers', () => {
  for (const kind of ['block', 'spin'] as const) {
    it(`reports a ${kind} fault in each phase once, with the helper as top frame, without disturbing it`, async () => {
      // Six busy threads on a small machine starve each other, so ordinary phases of the
      // not-yet-faulted ops can pause for a while (spinning ones most): the timeouts leave room.
      const t = await faultInEveryPhase(kind, kind === 'spin' ? 0.8 : 0.5);
      await waitFor(() => t.reports.length >= C2W_PHASES.length, 8000);
      await new Promise((r) => setTimeout(r, 300)); // room for a wrong second report
      checkReports(t.reports, kind);
      expect(t.reports).toHaveLength(C2W_PHASES.length);
      // The hung work was not interrupted: every worker is still in its phase.
      const health = t.pool.health();
      for (const r of t.reports) expect(health[r.workerId]).toMatchObject({ busy: true, opId: r.opId, phase: r.phase });
      expect(t.events.some((e) => e.type === 'watchdog.recovered')).toBe(false);
    });
  }

  it('reports a slow fault in each phase, which then completes with the same audio and a recovered event', async () => {
    // A generous timeout: on a loaded machine ordinary work can pause for a few hundred ms.
    const t = await faultInEveryPhase('slow', 0.5);
    const outputs = await Promise.all(t.results);
    checkReports(t.reports, 'slow');
    // Batching never changes a row's bytes (kernels test), so one batch gives all references.
    const refs = localDecoder(3).decode(C2W_PHASES.map((_, i) => item(`ref${i}`, windowCodes(i))));
    expect(outputs.map((o) => sha(o.wav!))).toEqual(refs.map((r) => sha(r.wav!)));
    const recovered = t.events.filter(
      (e): e is Extract<TelemetryEvent, { type: 'watchdog.recovered' }> => e.type === 'watchdog.recovered',
    );
    expect(recovered.map((e) => `${e.workerId}:${e.opId}`).sort()).toEqual(
      t.reports.map((r) => `${r.workerId}:${r.opId}`).sort(),
    );
    for (const e of recovered) expect(e.stalledS).toBeGreaterThanOrEqual(1.5);
  });
});
