/**
 * The telemetry half of the run reducer: Code2Wav operations and phases,
 * watchdog stalls and recoveries, joined to requests by x-request-id. Times
 * come from the source's wall clock when the run's start is known, so phases
 * line up with the client's request timeline.
 */
import { assertNever } from '../protocol/protocol.ts';
import type { TelemetryEvent } from '../protocol/telemetry.ts';
import type { Draft } from './draft.ts';
import { isServerStacks } from '../stalls/stallReport.ts';

/** Run-clock time of a telemetry event: from its source wall clock when the run start is known. */
function telemetryT(d: Draft, ts: number, fallback: number): number {
  return d.m.startedAtMs !== null ? ts - d.m.startedAtMs : fallback;
}

export function applyTelemetry(d: Draft, ev: TelemetryEvent, wrapT: number): void {
  const t = telemetryT(d, ev.ts, wrapT);
  switch (ev.type) {
    case 'c2w.op.begin': {
      const key = `${ev.workerId}:${ev.opId}`;
      d.own('ops')[key] = {
        key,
        workerId: ev.workerId,
        opId: ev.opId,
        requestIds: ev.requestIds,
        beginT: t,
        endT: null,
        ok: null,
        error: null,
        phases: [],
        stalled: false,
      };
      const by = d.own('opsByRequest');
      for (const id of ev.requestIds) by[id] = by[id] ? [...by[id], key] : [key];
      return;
    }
    case 'c2w.phase': {
      const op = d.op(`${ev.workerId}:${ev.opId}`);
      if (!op) return;
      const last = op.phases[op.phases.length - 1];
      // Steps inside a phase replace its details; they do not start a new segment.
      if (last && last.phase === ev.phase) op.phases[op.phases.length - 1] = { ...last, details: ev.details };
      else op.phases.push({ phase: ev.phase, t, details: ev.details });
      return;
    }
    case 'c2w.op.end': {
      const op = d.op(`${ev.workerId}:${ev.opId}`);
      if (!op) return;
      op.endT = t;
      op.ok = ev.ok;
      op.error = ev.error ?? null;
      return;
    }
    case 'watchdog.stall': {
      const r = ev.report;
      const st = d.m.startedAtMs !== null ? r.capturedAtMs - d.m.startedAtMs : wrapT;
      d.own('stalls').push({ t: st, report: r, recovered: null });
      const op = d.op(`${r.workerId}:${r.opId}`);
      if (op) op.stalled = true;
      return;
    }
    case 'watchdog.recovered': {
      const stalls = d.own('stalls');
      const i = stalls.findIndex(
        (s) => !isServerStacks(s.report) && s.report.workerId === ev.workerId && s.report.opId === ev.opId,
      );
      if (i >= 0) stalls[i] = { ...stalls[i], recovered: { t, stalledS: ev.stalledS } };
      return;
    }
    case 'telemetry.dropped':
      d.m.telemetryDropped += ev.count;
      return;
    case 'worker.busy':
    case 'worker.idle':
    case 'stage.progress':
      return; // Not drawn: the ops and phases already show what each worker does.
    default:
      assertNever(ev);
  }
}
