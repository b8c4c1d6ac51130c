/**
 * A run read from the store as its page reads it: the stored request rows as
 * timeline rows, and the model of a run that has rows but no event stream
 * (an import). The browser loads runs with these; the dashboard's exports
 * fold a stored run with them and the reducer, so both see the same run.
 */
import type { RequestRow } from '../protocol/apiSchemas.ts';
import type { SeqEvent } from '../protocol/protocol.ts';
import { isRequestEndStatus, type RequestStatus } from '../types.ts';
import { applyEvents } from './applyEvent.ts';
import { emptyRun, type RequestView, type RunModel } from './runModel.ts';

/** A stored request row as a timeline row. */
export function rowFromApi(r: RequestRow): RequestView {
  const status = r.status;
  return {
    index: r.index,
    requestId: r.requestId,
    status: r.status as RequestStatus,
    queuedT: r.queuedT,
    sentT: r.sentT,
    firstTokenT: r.firstTokenT,
    firstAudioT: r.firstAudioT,
    endT: r.endT,
    attempts: r.attempts,
    outputTokens: r.outputTokens,
    audioDurationS: r.audioDurationS,
    timeoutKind: r.timeoutKind,
    outcome: isRequestEndStatus(status)
      ? {
          index: r.index,
          requestId: r.requestId,
          status,
          ttftS: r.ttftS,
          e2elS: r.e2elS,
          audioTtfpS: r.audioTtfpS,
          audioDurationS: r.audioDurationS,
          outputTokens: r.outputTokens,
          promptLen: r.promptLen,
          attempts: r.attempts,
          error: r.error,
          sentT: r.sentT,
        }
      : null,
    // Imported runs carry no gate events; transcripts exist only for runs evaluated here.
    accuracy: null,
  };
}

/** A model of rows alone (an import has no events): their ids indexed, its clock ending at the last row's end. */
export function withRows(m: RunModel, rows: RequestView[]): RunModel {
  const indexById: Record<string, number> = {};
  for (const r of rows) if (r.requestId) indexById[r.requestId] = r.index;
  const lastT = rows.reduce((a, r) => Math.max(a, r.endT ?? r.sentT ?? 0), 0);
  return { ...m, requests: rows, indexById, lastT, finishedT: lastT };
}

/** The model of a stored run: its events folded by the page's reducer, or its rows when it has no events. */
export function storedRunModel(runId: string, events: readonly SeqEvent[], rows: readonly RequestRow[]): RunModel {
  const m = applyEvents(emptyRun(runId), events);
  return m.seq > 0 ? m : withRows(m, rows.map(rowFromApi));
}
