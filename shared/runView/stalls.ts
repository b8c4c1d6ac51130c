/**
 * A run's stall reports as its page shows them, pure: from its event stream,
 * or the stored ones when the stream has none (an import, a run read from an
 * older store); and how long each stall has lasted.
 */
import type { StallEntry } from '../protocol/apiSchemas.ts';
import { isServerStacks } from '../stalls/stallReport.ts';
import type { RunModel, StallRecord } from './runModel.ts';

/** The model's stall reports, else the stored ones placed on the run clock (`startedAtMs`, when known). */
export function runStalls(
  model: Pick<RunModel, 'stalls'> | undefined,
  stored: readonly StallEntry[],
  startedAtMs: number | null,
): StallRecord[] {
  if (model && model.stalls.length > 0) return model.stalls;
  return stored.map((e) => ({
    t: startedAtMs !== null ? e.report.capturedAtMs - startedAtMs : 0,
    report: e.report,
    recovered: e.recovered ? { t: 0, stalledS: e.recovered.stalledS } : null,
  }));
}

/** Seconds a stall has lasted: counting while the run is live, frozen at recovery or the run's end. */
export function stallAgeS(s: StallRecord, m: Pick<RunModel, 'startedAtMs' | 'finishedT'>, nowWallMs: number): number {
  // A py-spy capture knows no phase start: its age counts from the capture.
  const base = isServerStacks(s.report) ? 0 : s.report.inPhaseS;
  let endWall = nowWallMs;
  if (s.recovered) return base + Math.max(0, s.recovered.stalledS - base);
  if (m.finishedT !== null && m.startedAtMs !== null) endWall = Math.min(nowWallMs, m.startedAtMs + m.finishedT);
  return base + Math.max(0, endWall - s.report.capturedAtMs) / 1000;
}
