/**
 * A run as Chrome Trace Event JSON (opens in Perfetto / chrome://tracing):
 * - process "requests": one track per request, a span from queued to its end
 *   state with nested "queued", "waiting for first token" and "streaming";
 * - process "code2wav": one track per worker, each operation a span with its
 *   phases nested (an op that never ended runs to the end of the trace);
 * - instant events: watchdog stalls (stack in args), timeouts, cancellations,
 *   the breaker trip (global); a counter of requests in flight;
 * - process "server (py-spy)": one instant event per capture of the server's
 *   process tree, every thread's stack in its args.
 * Times are µs since the run's clock started.
 */
import type { RequestRow } from '../../../shared/apiSchemas.ts';
import type { RunEvent } from '../../../shared/protocol.ts';

export interface TraceEvent {
  name: string;
  ph: 'X' | 'i' | 'C' | 'M';
  ts: number;
  pid: number;
  tid?: number;
  dur?: number;
  s?: 'g' | 'p' | 't';
  cat?: string;
  args?: Record<string, unknown>;
}

const REQ_PID = 1;
const C2W_PID = 2;
const SERVER_PID = 3;
const us = (ms: number) => Math.round(ms * 1000);
/**
 * A slice from a to b: the endpoints are rounded once, and dur is derived from
 * them, so a child that ends with its parent ends at the same µs and adjacent
 * siblings touch without overlapping (rounding ts and dur separately could
 * push a child 1 µs past its parent).
 */
const slice = (a: number, b: number) => ({ ts: us(a), dur: Math.max(0, us(b) - us(a)) });

function meta(pid: number, tid: number | undefined, kind: 'process_name' | 'thread_name', name: string): TraceEvent {
  return { name: kind, ph: 'M', ts: 0, pid, ...(tid !== undefined ? { tid } : {}), args: { name } };
}

interface OpSpan {
  workerId: number;
  opId: number;
  begin: number;
  end: number | null;
  requestIds: string[];
  ok?: boolean;
  phases: { phase: string; at: number; details: unknown }[];
}

export function buildChromeTrace(
  runId: string,
  label: string | null,
  events: RunEvent[],
  rows: RequestRow[],
): { traceEvents: TraceEvent[]; displayTimeUnit: 'ms'; metadata: Record<string, unknown> } {
  const out: TraceEvent[] = [
    meta(REQ_PID, undefined, 'process_name', 'requests'),
    meta(C2W_PID, undefined, 'process_name', 'code2wav'),
  ];
  let startedAt: number | null = null;
  let lastT = 0;
  const ops = new Map<string, OpSpan>();
  const workers = new Set<number>();
  let inFlight = 0;
  let hasServer = false;
  const sent = new Set<number>();
  const rel = (wallMs: number, fallback: number) => (startedAt !== null ? wallMs - startedAt : fallback);

  for (const e of events) {
    lastT = Math.max(lastT, e.t);
    switch (e.type) {
      case 'run.started':
        startedAt = e.startedAtMs;
        break;
      case 'request.sent':
        if (!sent.has(e.index)) {
          sent.add(e.index);
          out.push({ name: 'in flight', ph: 'C', ts: us(e.t), pid: REQ_PID, args: { requests: ++inFlight } });
        }
        break;
      case 'request.completed':
      case 'request.failed':
      case 'request.timed_out':
      case 'request.cancelled':
      case 'request.not_dispatched': {
        const i = e.outcome.index;
        if (sent.delete(i))
          out.push({ name: 'in flight', ph: 'C', ts: us(e.t), pid: REQ_PID, args: { requests: --inFlight } });
        if (e.type === 'request.timed_out') {
          out.push({
            name: `timeout (${e.kind})`,
            ph: 'i',
            s: 't',
            ts: us(e.t),
            pid: REQ_PID,
            tid: i + 1,
            cat: 'timeout',
            args: { kind: e.kind, error: e.outcome.error },
          });
        }
        if (e.type === 'request.cancelled')
          out.push({
            name: 'cancelled after timeout',
            ph: 'i',
            s: 't',
            ts: us(e.t),
            pid: REQ_PID,
            tid: i + 1,
            cat: 'breaker',
          });
        break;
      }
      case 'breaker.tripped':
        out.push({
          name: 'breaker tripped',
          ph: 'i',
          s: 'g',
          ts: us(e.t),
          pid: REQ_PID,
          cat: 'breaker',
          args: { cause: e.cause, inFlight: e.inFlight, queued: e.queued },
        });
        break;
      case 'server.stacks': {
        const r = e.report;
        if (!hasServer) out.push(meta(SERVER_PID, undefined, 'process_name', 'server (py-spy)'));
        hasServer = true;
        const frameText = (f: { function: string; file: string; line: number }) =>
          `${f.function} (${f.file}:${f.line})`;
        out.push({
          name: `server stacks #${r.capture}: ${r.phase}${r.inferred ? ' (inferred)' : ''}`,
          ph: 'i',
          s: 'g',
          ts: us(rel(r.capturedAtMs, e.t)),
          pid: SERVER_PID,
          cat: 'py-spy',
          args: {
            reason: r.reason,
            phase: r.phase,
            inferredFrom: r.inferred ? { ...r.inferred, frame: frameText(r.inferred.frame) } : null,
            durationMs: r.durationMs,
            requestIds: r.requestIds,
            notes: r.notes,
            processes: r.processes.map((p) => ({
              pid: p.pid,
              ppid: p.ppid,
              cmdline: p.cmdline,
              ...(p.error ? { error: p.error } : {}),
              threads: p.threads.map((t) => ({
                name: t.name,
                tid: t.tid,
                active: t.active,
                ownsGil: t.ownsGil,
                stack: t.frames.map(frameText),
              })),
            })),
          },
        });
        break;
      }
      case 'telemetry': {
        const t = e.event;
        if (t.type === 'c2w.op.begin') {
          workers.add(t.workerId);
          ops.set(`${t.workerId}:${t.opId}`, {
            workerId: t.workerId,
            opId: t.opId,
            begin: rel(t.ts, e.t),
            end: null,
            requestIds: t.requestIds,
            phases: [],
          });
        } else if (t.type === 'c2w.phase') {
          const op = ops.get(`${t.workerId}:${t.opId}`);
          const last = op?.phases[op.phases.length - 1];
          // Eager CFM reports every step: a new step of the same phase only updates details.
          if (op && last?.phase !== t.phase) op.phases.push({ phase: t.phase, at: rel(t.ts, e.t), details: t.details });
          else if (last) last.details = t.details;
        } else if (t.type === 'c2w.op.end') {
          const op = ops.get(`${t.workerId}:${t.opId}`);
          if (op) Object.assign(op, { end: rel(t.ts, e.t), ok: t.ok });
        } else if (t.type === 'watchdog.stall') {
          const r = t.report;
          workers.add(r.workerId);
          out.push({
            name: `stall in ${r.phase}`,
            ph: 'i',
            s: 't',
            ts: us(rel(r.capturedAtMs, e.t)),
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
        } else if (t.type === 'watchdog.recovered') {
          out.push({
            name: 'recovered',
            ph: 'i',
            s: 't',
            ts: us(rel(t.ts, e.t)),
            pid: C2W_PID,
            tid: t.workerId + 1,
            cat: 'watchdog',
            args: { opId: t.opId, stalledS: t.stalledS },
          });
        }
        lastT = Math.max(lastT, rel(t.ts, e.t));
        break;
      }
      default:
        break;
    }
  }

  for (const w of workers) out.push(meta(C2W_PID, w + 1, 'thread_name', `worker ${w}`));
  for (const op of ops.values()) {
    const end = op.end ?? lastT;
    out.push({
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
      out.push({
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

  for (const r of rows) {
    const tid = r.index + 1;
    out.push(meta(REQ_PID, tid, 'thread_name', `req ${r.index} (${r.requestId})`));
    const start = r.queuedT ?? r.sentT;
    if (start === null) continue;
    const end = r.endT ?? lastT;
    out.push({
      name: `request ${r.index}: ${r.status}`,
      ph: 'X',
      ...slice(start, end),
      pid: REQ_PID,
      tid,
      cat: 'request',
      args: {
        status: r.status,
        ttftS: r.ttftS,
        e2elS: r.e2elS,
        audioTtfpS: r.audioTtfpS,
        attempts: r.attempts,
        error: r.error,
      },
    });
    const span = (name: string, a: number | null, b: number | null) => {
      if (a !== null && b !== null && b >= a)
        out.push({ name, ph: 'X', ...slice(a, b), pid: REQ_PID, tid, cat: 'request' });
    };
    span('queued', r.queuedT, r.sentT);
    span('waiting for first token', r.sentT, r.firstTokenT ?? (r.status === 'completed' ? null : end));
    span('streaming', r.firstTokenT, end);
  }
  return { traceEvents: out, displayTimeUnit: 'ms', metadata: { runId, label, source: 'stallscope' } };
}
