/**
 * A run as Chrome Trace Event JSON (opens in Perfetto / chrome://tracing):
 * - process "requests": one track per request, a span from queued to its end
 *   state with nested "queued", "waiting for first token" and "streaming";
 *   timeout and cancellation instants, the breaker trip (global), a counter
 *   of requests in flight (traceRequests.ts);
 * - process "code2wav": one track per worker, each operation a span with its
 *   phases nested (an op that never ended runs to the end of the trace), the
 *   watchdog's stall and recovery instants (traceCode2wav.ts);
 * - process "server (py-spy)": one instant event per capture of the server's
 *   process tree, every thread's stack in its args (traceServer.ts).
 * Times are µs since the run's clock started.
 */
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { RunEvent } from '../../../shared/protocol/protocol.ts';
import { isRequestEvent } from '../../../shared/requests/requestLifecycle.ts';
import { Code2WavTrack } from './traceCode2wav.ts';
import { emitBreakerTripped, emitRunStopped, emitRequestRow, RequestTrack } from './traceRequests.ts';
import { emitServerStacks } from './traceServer.ts';
import { TraceWriter, type TraceEvent } from './traceFormat.ts';

export type { TraceEvent } from './traceFormat.ts';

export function buildChromeTrace(
  runId: string,
  label: string | null,
  events: RunEvent[],
  rows: RequestRow[],
): { traceEvents: TraceEvent[]; displayTimeUnit: 'ms'; metadata: Record<string, unknown> } {
  const t = traceFrame(runId, label, events);
  for (const r of rows) emitRequestRow(t.writer, r);
  return { traceEvents: t.writer.out, displayTimeUnit: t.displayTimeUnit, metadata: t.metadata };
}

/** A trace up to its request rows: the events' part written, the rows' tracks to come (one per row). */
export interface TraceFrame {
  writer: TraceWriter;
  displayTimeUnit: 'ms';
  metadata: Record<string, unknown>;
}

export function traceFrame(runId: string, label: string | null, events: RunEvent[]): TraceFrame {
  const w = new TraceWriter();
  // Cancellations are written before or after the run.stopped that caused them: the rule is known from the start.
  for (const e of events) if (e.type === 'run.stopped') w.stop ??= e.stoppedBy;
  const requests = new RequestTrack(w);
  const code2wav = new Code2WavTrack(w);
  let captures = 0;
  for (const e of events) {
    w.seen(e.t);
    if (isRequestEvent(e)) {
      requests.onEvent(e);
      continue;
    }
    switch (e.type) {
      case 'run.started':
        w.startedAt = e.startedAtMs;
        break;
      case 'requests.unsent':
        requests.onUnsent(e);
        break;
      case 'breaker.tripped':
        emitBreakerTripped(w, e);
        break;
      case 'run.stopped':
        emitRunStopped(w, e);
        break;
      case 'server.stacks':
        emitServerStacks(w, e, captures++ === 0);
        break;
      case 'telemetry':
        code2wav.onTelemetry(e.event, e.t);
        break;
      default:
        break;
    }
  }
  code2wav.finish();
  return { writer: w, displayTimeUnit: 'ms', metadata: { runId, label, source: 'stallscope' } };
}

/** The trace's events page by page: the events' part first, then each page of rows' tracks (buildChromeTrace's order). */
export async function* traceRowPages(
  t: TraceFrame,
  rows: () => AsyncIterable<RequestRow[]>,
): AsyncGenerator<TraceEvent[]> {
  const w = t.writer;
  yield w.out.splice(0);
  for await (const page of rows()) {
    for (const r of page) emitRequestRow(w, r);
    yield w.out.splice(0);
  }
}
