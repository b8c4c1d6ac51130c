/**
 * One stored run read for an export: its row and events, folded by the run
 * page's own reducer (shared/runView/) into the model the page draws, its
 * stall reports and the waits behind a stalled op as the page shows them once
 * the run is over. Its request rows are not here: an export reads them page
 * by page (./rowPages.ts), so its memory does not grow with the requests a
 * run declared.
 */
import type { RunEvent, RunState, RunSummary, SeqEvent } from '../../../shared/protocol/protocol.ts';
import { eventRequestIndex, isRequestEvent } from '../../../shared/requests/requestLifecycle.ts';
import type { RunModel, StallRecord } from '../../../shared/runView/runModel.ts';
import { blockedWaits, type BlockedWait } from '../../../shared/runView/runStory.ts';
import { storedRunModel } from '../../../shared/runView/storedRows.ts';
import { runStalls } from '../../../shared/runView/stalls.ts';
import type { InterruptCause } from '../../../shared/types.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';
import type { StoredRunRow } from '../store/common/records.ts';

/** Rows read at most for the model of a run without events (an import, whose rows are its model). */
const MAX_ROWS = 1_000_000;

export interface StoredRun {
  run: StoredRunRow;
  events: SeqEvent[];
  model: RunModel;
  stalls: StallRecord[];
  /** The run clock at its end (or at its last event, for a run that never ended). */
  endT: number;
  waits: Record<string, BlockedWait>;
}

/** Who interrupted a run: the result's `interrupt_cause`, else what the dashboard recorded (a run marked abandoned). */
export function interruptCauseOf(summary: RunSummary | null, state: RunState | null): InterruptCause | null {
  const key = summary?.metrics.interrupt_cause;
  if (key === 'signal' || key === 'dashboard') return key;
  return state?.interruptCause ?? null;
}

/**
 * The model of a run's events, its rows sized to the requests its events name: `run.started` pre-sizes the
 * page's rows to every request declared (ten million empty rows for a run that declared 10,000,000), which an
 * export never reads (its rows come page by page). What the run declared is kept in its info and counts.
 */
function exportModel(id: string, events: SeqEvent[]): RunModel {
  let named = 0;
  for (const { event } of events) if (isRequestEvent(event)) named = Math.max(named, eventRequestIndex(event) + 1);
  let declared: number | null = null;
  const sized = events.map((s) => {
    if (s.event.type !== 'run.started' || s.event.numRequests <= named) return s;
    declared = s.event.numRequests;
    return { seq: s.seq, event: { ...s.event, numRequests: named } };
  });
  const m = storedRunModel(id, sized, []);
  if (declared === null) return m;
  return {
    ...m,
    info: m.info && { ...m.info, numRequests: declared },
    counts: m.counts.total === named ? { ...m.counts, total: declared } : m.counts,
  };
}

/** The run, or null when there is no such run. Flushes the writer first, so a live run's last events are in. */
export async function readStoredRun(store: DashboardStore, id: string): Promise<StoredRun | null> {
  const run = await store.runReads.get(id);
  if (!run) return null;
  await store.ingest.flush();
  const events = (await store.runReads.eventsAfter(id, 0, 10_000_000)).map((e) => ({
    seq: e.seq,
    event: JSON.parse(e.json) as RunEvent,
  }));
  const model =
    events.length > 0
      ? exportModel(id, events)
      : storedRunModel(id, [], (await store.runReads.requests(id, 0, MAX_ROWS)).requests);
  const endT = model.finishedT ?? model.lastT;
  return {
    run,
    events,
    model,
    stalls: runStalls(model, await store.runReads.stallReports(id), model.startedAtMs ?? run.startedAtMs),
    endT,
    waits: blockedWaits(model, endT),
  };
}
