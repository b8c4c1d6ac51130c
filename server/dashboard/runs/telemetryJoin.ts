/**
 * Which live run a telemetry event belongs to. An event naming request ids
 * joins the live run that sent one of them (exact match, whatever the
 * request-id prefix); failing that, request ids are `<runId>-<index>` (or
 * `<runId>-warmup-<i>`), so the run whose id is their longest matching
 * prefix. An explicit
 * `runId` (the ingest URL's query) wins. Events naming no request (worker
 * busy/idle, drop counts) join the only live run, if there is exactly one.
 */
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';

export function requestIdsOf(e: TelemetryEvent): string[] {
  switch (e.type) {
    case 'c2w.op.begin':
    case 'c2w.phase':
    case 'c2w.op.end':
    case 'watchdog.recovered':
      return e.requestIds;
    case 'watchdog.stall':
      return e.report.requestIds;
    case 'stage.progress':
      return [e.requestId];
    case 'worker.busy':
    case 'worker.idle':
    case 'telemetry.dropped':
      return [];
  }
}

export function runOfRequestId(requestId: string, liveRunIds: string[]): string | null {
  let best: string | null = null;
  for (const id of liveRunIds) {
    if (requestId.startsWith(`${id}-`) && (best === null || id.length > best.length)) best = id;
  }
  return best;
}

export function joinTelemetry(
  e: TelemetryEvent,
  liveRunIds: string[],
  hint?: string,
  sentBy?: (requestId: string) => string | undefined,
): string | null {
  if (hint !== undefined) return liveRunIds.includes(hint) ? hint : null;
  for (const rid of requestIdsOf(e)) {
    const run = sentBy?.(rid);
    if (run) return run;
  }
  for (const rid of requestIdsOf(e)) {
    const run = runOfRequestId(rid, liveRunIds);
    if (run) return run;
  }
  return requestIdsOf(e).length === 0 && liveRunIds.length === 1 ? liveRunIds[0] : null;
}
