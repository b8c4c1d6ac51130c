/**
 * The "code2wav" process of the Perfetto export, from the target's
 * telemetry: one track per worker, each operation a span with its phases
 * nested (an op that never ended runs to the end of the trace), and the
 * watchdog's stall and recovery instants.
 */
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import { C2W_PID, meta, slice, us, type TraceWriter } from './traceFormat.ts';

type Telemetry<K extends TelemetryEvent['type']> = Extract<TelemetryEvent, { type: K }>;

interface OpSpan {
  workerId: number;
  opId: number;
  begin: number;
  end: number | null;
  requestIds: string[];
  ok?: boolean;
  phases: { phase: string; at: number; details: unknown }[];
}

/** The Code2Wav ops and workers of one trace, gathered from its telemetry and written at the end. */
export class Code2WavTrack {
  private readonly ops = new Map<string, OpSpan>();
  private readonly workers = new Set<number>();

  constructor(private readonly w: TraceWriter) {}

  /** One telemetry event at run-clock `t` (the time of its arrival in the run's stream). */
  onTelemetry(ev: TelemetryEvent, t: number): void {
    switch (ev.type) {
      case 'c2w.op.begin':
        this.onOpBegin(ev, t);
        break;
      case 'c2w.phase':
        this.onPhase(ev, t);
        break;
      case 'c2w.op.end': {
        const op = this.ops.get(`${ev.workerId}:${ev.opId}`);
        if (op) Object.assign(op, { end: this.w.rel(ev.ts, t), ok: ev.ok });
        break;
      }
      case 'watchdog.stall':
        this.onStall(ev, t);
        break;
      case 'watchdog.recovered':
        this.w.push({
          name: 'recovered',
          ph: 'i',
          s: 't',
          ts: us(this.w.rel(ev.ts, t)),
          pid: C2W_PID,
          tid: ev.workerId + 1,
          cat: 'watchdog',
          args: { opId: ev.opId, stalledS: ev.stalledS },
        });
        break;
      default:
        break;
    }
    this.w.seen(this.w.rel(ev.ts, t));
  }

  private onOpBegin(ev: Telemetry<'c2w.op.begin'>, t: number): void {
    this.workers.add(ev.workerId);
    this.ops.set(`${ev.workerId}:${ev.opId}`, {
      workerId: ev.workerId,
      opId: ev.opId,
      begin: this.w.rel(ev.ts, t),
      end: null,
      requestIds: ev.requestIds,
      phases: [],
    });
  }

  private onPhase(ev: Telemetry<'c2w.phase'>, t: number): void {
    const op = this.ops.get(`${ev.workerId}:${ev.opId}`);
    const last = op?.phases[op.phases.length - 1];
    // Eager CFM reports every step: a new step of the same phase only updates details.
    if (op && last?.phase !== ev.phase)
      op.phases.push({ phase: ev.phase, at: this.w.rel(ev.ts, t), details: ev.details });
    else if (last) last.details = ev.details;
  }

  private onStall(ev: Telemetry<'watchdog.stall'>, t: number): void {
    const r = ev.report;
    this.workers.add(r.workerId);
    this.w.push({
      name: `stall in ${r.phase}`,
      ph: 'i',
      s: 't',
      ts: us(this.w.rel(r.capturedAtMs, t)),
      pid: C2W_PID,
      tid: r.workerId + 1,
      cat: 'watchdog',
      args: {
        opId: r.opId,
        phase: r.phase,
        details: r.details,
        requestIds: r.requestIds,
        inPhaseS: r.inPhaseS,
        inOpS: r.inOpS,
        stack: r.stack.map((f) => `${f.function} (${f.file}:${f.line}:${f.column})`),
        stackError: r.stackError,
      },
    });
  }

  /** The workers' names, then each op's span with its phases (an op never ended runs to the end of the trace). */
  finish(): void {
    for (const wk of this.workers) this.w.push(meta(C2W_PID, wk + 1, 'thread_name', `worker ${wk}`));
    for (const op of this.ops.values()) {
      const end = op.end ?? this.w.lastT;
      this.w.push({
        name: `op ${op.opId}${op.end === null ? ' (never ended)' : ''}`,
        ph: 'X',
        ...slice(op.begin, end),
        pid: C2W_PID,
        tid: op.workerId + 1,
        cat: 'code2wav',
        args: { requestIds: op.requestIds, ok: op.ok ?? null },
      });
      op.phases.forEach((p, k) => {
        const pEnd = op.phases[k + 1]?.at ?? end;
        this.w.push({
          name: p.phase,
          ph: 'X',
          ...slice(p.at, pEnd),
          pid: C2W_PID,
          tid: op.workerId + 1,
          cat: 'phase',
          args: { details: p.details },
        });
      });
    }
  }
}
