/**
 * One stored run read whole for an export: its row, request rows and events,
 * folded by the run page's own reducer (shared/runView/) into the model the
 * page draws, its stall reports and the waits behind a stalled op as the page
 * shows them once the run is over.
 */
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { RunEvent, RunState, RunSummary, SeqEvent } from '../../../shared/protocol/protocol.ts';
import type { RunModel, StallRecord } from '../../../shared/runView/runModel.ts';
import { blockedWaits, type BlockedWait } from '../../../shared/runView/runStory.ts';
import { storedRunModel } from '../../../shared/runView/storedRows.ts';
import { runStalls } from '../../../shared/runView/stalls.ts';
import type { InterruptCause } from '../../../shared/types.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';
import type { StoredRunRow } from '../store/common/records.ts';

/** Rows read at most (the exports hold the run in memory). */
const MAX_ROWS = 1_000_000;

export interface StoredRun {
  run: StoredRunRow;
  rows: RequestRow[];
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

/** The run, or null when there is no such run. Flushes the writer first, so a live run's last events are in. */
export async function readStoredRun(store: DashboardStore, id: string): Promise<StoredRun | null> {
  const run = await store.runReads.get(id);
  if (!run) return null;
  await store.ingest.flush();
  const rows = (await store.runReads.requests(id, 0, MAX_ROWS)).requests;
  const events = (await store.runReads.eventsAfter(id, 0, 10_000_000)).map((e) => ({
    seq: e.seq,
    event: JSON.parse(e.json) as RunEvent,
  }));
  const model = storedRunModel(id, events, rows);
  const endT = model.finishedT ?? model.lastT;
  return {
    run,
    rows,
    events,
    model,
    stalls: runStalls(model, await store.runReads.stallReports(id), model.startedAtMs ?? run.startedAtMs),
    endT,
    waits: blockedWaits(model, endT),
  };
}
